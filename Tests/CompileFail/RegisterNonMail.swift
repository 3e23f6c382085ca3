// expect-error: requires that 'String' conform to 'Mail'
// A handler must name a `Mail` type.
import Mailroom

PostOffice.default.register { (text: String) in print(text) }
