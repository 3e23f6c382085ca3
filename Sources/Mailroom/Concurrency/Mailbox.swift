/// The mail waiting for one registration whose handler suspends (an async closure or an actor), delivered one
/// letter at a time, in the order the posts appended them, by a single task at a time.
@usableFromInline
final class Mailbox: Sendable {
    /// One posted mail, copied, with its sender, the receipt of the `deliver(_:)` that waits for it, and the
    /// context the office's instrumentation captured from its post.
    struct Letter: Sendable {
        let mail: any Mail
        let sender: SendableObject?
        let receipt: Receipt?
        let captured: (any CapturedContext)?
    }

    /// Whether a task is draining the mailbox, and the letters it has yet to deliver.
    private enum State {
        /// No task is draining and no letter waits. `spare` is empty: its capacity is kept for the next letters.
        case idle(spare: [Letter])
        /// A task is delivering `letters`, from index `next` on, and ends when it finds none left.
        case draining(letters: [Letter], next: Int)

        /// Adds `letter`. Returns true when that woke the mailbox: the caller then starts the draining task.
        mutating func append(_ letter: Letter) -> Bool {
            // Consumed, so that the letters are changed in place rather than copied.
            switch consume self {
            case .idle(var letters):
                letters.append(letter)
                self = .draining(letters: letters, next: 0)
                return true
            case .draining(var letters, let next):
                letters.append(letter)
                self = .draining(letters: letters, next: next)
                return false
            }
        }

        /// The oldest letter not delivered yet; `nil` when none is left, and the mailbox is then idle.
        mutating func takeNext() -> Letter? {
            switch consume self {
            case .idle(let spare):
                self = .idle(spare: spare)
                return nil
            case .draining(var letters, var next):
                guard next < letters.count else {
                    letters.removeAll(keepingCapacity: true)
                    self = .idle(spare: letters)
                    return nil
                }
                let letter = letters[next]
                next += 1
                // Delivered letters are dropped in batches, once they are half the array: not one shift per letter.
                if next >= 64, next * 2 >= letters.count {
                    letters.removeFirst(next)
                    next = 0
                }
                self = .draining(letters: letters, next: next)
                return letter
            }
        }
    }

    let handler: Registration.AsyncHandler
    private let state = Locked(State.idle(spare: []))

    init(_ handler: @escaping Registration.AsyncHandler) {
        self.handler = handler
    }

    /// Adds a letter. Returns true when no task is draining the mailbox: the caller then starts one.
    func append(
        _ mail: any Mail, from sender: SendableObject?, receipt: Receipt?, captured: (any CapturedContext)?
    ) -> Bool {
        let letter = Letter(mail: mail, sender: sender, receipt: receipt, captured: captured)
        return state.withLock { $0.append(letter) }
    }

    /// The oldest letter, or `nil` when there is none left, in which case the draining task must end.
    func next() -> Letter? {
        state.withLock { $0.takeNext() }
    }
}
