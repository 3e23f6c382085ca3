/// A value that can be posted through a ``PostOffice``.
///
/// Conform any struct, enum or class to `Mail` to post it; the protocol has no requirements beyond
/// `Sendable`, because mail may be delivered on another thread or queue.
///
/// ```swift
/// struct CartChanged: Mail { let itemCount: Int }
/// PostOffice.default.post(CartChanged(itemCount: 3))
/// ```
///
/// A post reaches the recipients registered for the mail's own type. For a class, it also reaches the
/// recipients registered for each of its superclasses that conforms to `Mail`, whatever the static type of
/// the variable it was posted through. Two types are different mail types whenever Swift sees them as
/// different types: same-named types in different modules, or `Box<Int>` and `Box<String>`.
public protocol Mail: Sendable {}
