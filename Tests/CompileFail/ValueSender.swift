// expect-error: requires that 'Int' be a class type
// Senders are objects: a sender filter compares identity or class, which a value does not have.
import Mailroom

struct Tick: Mail {}

PostOffice.default.post(Tick(), sender: 7)
