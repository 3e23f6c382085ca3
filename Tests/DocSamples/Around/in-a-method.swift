// For a sample that is the body of a method of a screen: `self` is the screen.
final class Screen: Sendable {
    func render(_ change: CartChanged) {}

    func sample() {
        // SAMPLE
    }
}
