// expect-error: extraneous argument label 'queue:' in call
// An interceptor may end the post, so it runs during the post: no `intercept` form takes a queue.
import Dispatch
import Mailroom

struct KeyPress: Mail { let key: String }

func setUp(office: PostOffice, queue: DispatchQueue) {
    office.intercept(queue: queue) { (press: KeyPress) in press.key == "escape" ? .consumed : .passOn }
}
