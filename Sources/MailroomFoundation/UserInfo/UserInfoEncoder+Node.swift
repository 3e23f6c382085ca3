import Foundation

extension UserInfoEncoder {
    /// One position in the dictionary being built.
    ///
    /// A reference, so a container handed to a model keeps writing into the output after the call that made it
    /// has returned (a model may take a nested container, then fill it later), and so `superEncoder` can hand out
    /// an encoder for a slot that already sits in its parent.
    final class Node {
        enum Shape {
            /// Nothing written yet. Becomes the first shape asked of it.
            case unset
            case value
            case keyed
            case unkeyed
        }

        private(set) var shape: Shape = .unset
        private(set) var value: Any = NSNull()
        var fields: [String: Node] = [:]
        var elements: [Node] = []

        init() {}

        init(value: Any) {
            shape = .value
            self.value = value
        }

        init(shape: Shape) {
            self.shape = shape
        }

        /// Makes an unset node keyed. False if it already holds something else.
        func becomeKeyed() -> Bool {
            become(.keyed)
        }

        /// Makes an unset node unkeyed. False if it already holds something else.
        func becomeUnkeyed() -> Bool {
            become(.unkeyed)
        }

        /// Stores a single value in an unset node. False if it already holds something.
        func store(_ value: Any) -> Bool {
            guard shape == .unset else { return false }
            shape = .value
            self.value = value
            return true
        }

        private func become(_ wanted: Shape) -> Bool {
            if shape == .unset {
                shape = wanted
            }
            return shape == wanted
        }

        /// The keyed child at `key`, reusing one of that shape already there (so a model may ask twice for the
        /// same nested container) and replacing anything else.
        func child(forKey key: String, shape wanted: Shape) -> Node {
            if let existing = fields[key], existing.shape == wanted {
                return existing
            }
            let child = Node(shape: wanted)
            fields[key] = child
            return child
        }

        /// The output value: a plain Swift value, `[String: Any]` or `[Any]`.
        func materialized() -> Any {
            switch shape {
            case .value:
                return value
            case .unkeyed:
                return elements.map { $0.materialized() }
            case .keyed, .unset:
                return materializedFields() ?? [String: Any]()
            }
        }

        /// The fields of a keyed node as a dictionary, nil for any other shape.
        func materializedFields() -> [String: Any]? {
            guard shape == .keyed else { return nil }
            return fields.mapValues { $0.materialized() }
        }

        var shapeDescription: String {
            switch shape {
            case .unset:
                return "no value"
            case .value:
                return "a single value of type \(type(of: value))"
            case .keyed:
                return "a keyed container"
            case .unkeyed:
                return "an unkeyed container"
            }
        }
    }
}
