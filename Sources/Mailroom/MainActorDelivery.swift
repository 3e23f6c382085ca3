/// Chooses delivery on the main actor for a closure registration: `office.register(on: .mainActor) { ... }`.
public enum MainActorDelivery: Sendable {
    /// Deliver on the main actor.
    case mainActor
}
