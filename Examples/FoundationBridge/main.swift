// Foundation notifications in and out of Mailroom: `swift run FoundationTour`.
//
// Every bridge, forward and recipient here runs on the posting thread (the main thread), so the lines come out
// in the same order on every run; dictionaries are printed with sorted keys.
import Foundation
import Mailroom
import MailroomFoundation

let office = PostOffice()
let center = NotificationCenter.default

/// A userInfo dictionary, or any value in it, printed the same way on every run.
func describe(_ value: Any) -> String {
    switch value {
    case let dictionary as [AnyHashable: Any]:
        let entries = dictionary.map { key, value in "\(key): \(describe(value))" }.sorted()
        return "[" + entries.joined(separator: ", ") + "]"
    case let string as String:
        return "\"\(string)\""
    default:
        return "\(value)"
    }
}

func describe(_ rect: CGRect) -> String {
    "(\(Int(rect.minX)), \(Int(rect.minY)), \(Int(rect.width))x\(Int(rect.height)))"
}

// MARK: - 1. A system notification, bridged in as typed mail

/// What a screen needs from UIKit's keyboard-will-show notification. The coding keys are UIKit's userInfo keys.
struct KeyboardWillShow: Mail, Decodable {
    enum Curve: Int, Decodable {
        case easeInOut = 0
        case easeIn = 1
        case easeOut = 2
        case linear = 3
        case keyboard = 7
    }

    let frameEnd: CGRect
    let duration: Double
    let curve: Curve
    let isLocal: Bool

    enum CodingKeys: String, CodingKey {
        case frameEnd = "UIKeyboardFrameEndUserInfoKey"
        case duration = "UIKeyboardAnimationDurationUserInfoKey"
        case curve = "UIKeyboardAnimationCurveUserInfoKey"
        case isLocal = "UIKeyboardIsLocalUserInfoKey"
    }
}

let keyboardWillShow = Notification.Name("UIKeyboardWillShowNotification")

/// What UIKit posts (it would post it itself; the tour posts it by hand).
func postKeyboardWillShow(duration: Any) {
    center.post(
        name: keyboardWillShow, object: nil,
        userInfo: [
            "UIKeyboardFrameBeginUserInfoKey": NSValue(rect: CGRect(x: 0, y: 844, width: 390, height: 336)),
            "UIKeyboardFrameEndUserInfoKey": NSValue(rect: CGRect(x: 0, y: 508, width: 390, height: 336)),
            "UIKeyboardAnimationDurationUserInfoKey": duration,
            "UIKeyboardAnimationCurveUserInfoKey": NSNumber(value: 7),
            "UIKeyboardIsLocalUserInfoKey": NSNumber(value: true),
        ])
}

print("1. A keyboard notification arrives as a typed KeyboardWillShow")
NotificationBridge.log = { line in print("  bridge log: \(line)") }
let keyboard = office.bridge(keyboardWillShow, in: center, as: KeyboardWillShow.self)
office.register { (change: KeyboardWillShow) in
    print("  layout: keyboard ends at \(describe(change.frameEnd)), in \(change.duration) s, curve \(change.curve)")
}
postKeyboardWillShow(duration: NSNumber(value: 0.25))

print("2. A notification that does not decode is reported, not posted")
postKeyboardWillShow(duration: "0.25")  // a string where UIKit puts a number
postKeyboardWillShow(duration: "0.25")  // the same failure again: counted, not logged twice
print("  failures: \(keyboard.failureCount)")

// MARK: - 3. Events of one owner: success or failure in one enum

struct User: Codable, Sendable {
    let name: String
}

enum LoginError: String, Error, Codable {
    case wrongPassword
    case offline
}

/// Logs users in and says how it went. Only a `LoginManager` may post its `Event`s.
final class LoginManager: Sendable {
    enum Event: NotificationEvents {
        typealias RequiredSender = LoginManager
        case succeeded(User)
        case failed(LoginError)
    }

    private let office: PostOffice

    init(office: PostOffice) {
        self.office = office
    }

    func logIn(_ name: String, password: String) {
        if password == "secret" {
            office.post(Event.succeeded(User(name: name)), sender: self)
        } else {
            office.post(Event.failed(.wrongPassword), sender: self)
        }
    }
}

/// The login screen's state: on the main actor, registered by its method, held weakly.
@MainActor final class LoginViewModel {
    private(set) var message = ""

    init(office: PostOffice) {
        office.register(self, LoginViewModel.receive)
    }

    func receive(_ event: LoginManager.Event, from manager: LoginManager) {
        switch event {
        case .succeeded(let user): message = "Welcome, \(user.name)"
        case .failed(let error): message = "Could not log in: \(error)"
        }
        print("  view model shows \"\(message)\"")
    }
}

print("3. One enum of events: the view model switches over success and failure")
let manager = LoginManager(office: office)
let viewModel = LoginViewModel(office: office)
manager.logIn("ada", password: "secret")
manager.logIn("ada", password: "guess")

// MARK: - 4. Forwarded, for an observer that still listens by name

print("4. Forwarded: a legacy observer still gets \"FoundationTour.LoginManager.failed\" by name")
let legacy = center.addObserver(
    forName: Notification.Name("FoundationTour.LoginManager.failed"), object: nil, queue: nil
) { note in
    let sender = note.object is LoginManager ? "the LoginManager" : "someone else"
    print("  legacy observer: \(note.name.rawValue) from \(sender), userInfo \(describe(note.userInfo ?? [:]))")
}
let loginEvents = office.forward(LoginManager.Event.self, to: center)
manager.logIn("ada", password: "guess")  // the view model, then the legacy observer
manager.logIn("ada", password: "secret")  // the view model only: no legacy observer for "succeeded"

print("5. The last observer by name has gone, so the forward is cancelled: only the view model hears")
center.removeObserver(legacy)
loginEvents.cancel()
manager.logIn("grace", password: "guess")
print("  registrations left: \(office.registrationCount) (the keyboard layout closure and the view model)")
