// For a sample that is the body of a view controller's method: `self` is the view controller.
final class KeyboardViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        // SAMPLE
    }
}
