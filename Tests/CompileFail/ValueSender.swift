// expect-error: instance method 'post(_:sender:)' requires that
// Senders are objects: a sender filter compares identity or class, which a value does not have. (Swift names
// the VerifiedMail form in its message, as the closest candidate; no form accepts a value as the sender.)
import Mailroom

struct Tick: Mail {}

PostOffice.default.post(Tick(), sender: 7)
