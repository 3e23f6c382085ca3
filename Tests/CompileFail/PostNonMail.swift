// expect-error: requires that 'Int' conform to 'Mail'
// Only `Mail` can be posted: a value of any other type is a compile error, not a silent no-op.
import Mailroom

PostOffice.default.post(42)
