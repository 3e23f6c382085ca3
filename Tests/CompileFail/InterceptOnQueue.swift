// expect-error: cannot convert value of type 'DispatchQueue' to expected argument type
// An interceptor may end the post, so it runs during the post: no `intercept` form takes a queue (Swift, finding
// no `queue:` parameter, tries the queue as the handler).
import Dispatch
import Mailroom

struct KeyPress: Mail { let key: String }

func setUp(office: PostOffice, queue: DispatchQueue) {
    office.intercept(queue: queue) { (press: KeyPress) in press.key == "escape" ? .consumed : .passOn }
}
