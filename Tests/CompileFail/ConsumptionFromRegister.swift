// expect-error: declared closure result 'Consumption' is incompatible with contextual type 'Void'
// Only `intercept` forms consume: a closure that returns a Consumption given to `register` is not taken for an
// interceptor whose answer would be ignored.
import Mailroom

struct KeyPress: Mail { let key: String }

func setUp(office: PostOffice) {
    office.register { (press: KeyPress) -> Consumption in press.key == "escape" ? .consumed : .passOn }
}
