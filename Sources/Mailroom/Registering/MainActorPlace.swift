/// The argument of the main-actor register forms, `register(on: .mainActor)`, which picks delivery on the main actor:
/// `office.register(on: .mainActor) { ... }`.
public enum MainActorPlace: Sendable {
    /// Deliver on the main actor.
    case mainActor
}
