// Stand-ins for the UIKit names the samples use, for the platforms without UIKit that the samples are checked
// on. The names and values are UIKit's; nothing here is Mailroom's.
import Foundation

/// UIKit's `UIResponder`, for its keyboard notification and userInfo keys.
public enum UIResponder {
    /// Posted before the keyboard appears.
    public static let keyboardWillShowNotification = Notification.Name("UIKeyboardWillShowNotification")
    /// The userInfo key of the keyboard's final frame, an `NSValue` holding a `CGRect`.
    public static let keyboardFrameEndUserInfoKey = "UIKeyboardFrameEndUserInfoKey"
    /// The userInfo key of the animation's duration, a `Double`.
    public static let keyboardAnimationDurationUserInfoKey = "UIKeyboardAnimationDurationUserInfoKey"
    /// The userInfo key of the animation's curve, an `Int`.
    public static let keyboardAnimationCurveUserInfoKey = "UIKeyboardAnimationCurveUserInfoKey"
}

/// UIKit's `UIApplication`, for its notification names.
public enum UIApplication {
    /// Posted when the app becomes active.
    public static let didBecomeActiveNotification = Notification.Name("UIApplicationDidBecomeActiveNotification")
}

/// UIKit's `UIViewController`: a main-actor class with a `viewDidLoad()` to override.
@MainActor open class UIViewController {
    /// A view controller.
    public init() {}

    /// Called once the view is loaded.
    open func viewDidLoad() {}

    /// Moves the view's content above the keyboard's `frame` (the app's own method; a stand-in: does nothing).
    public func moveContent(above frame: CGRect, duration: Double, curve: some Sendable) {}
}

extension NSValue {
    /// UIKit's reading of an `NSValue` holding a `CGRect`.
    public var cgRectValue: CGRect { rectValue }
}
