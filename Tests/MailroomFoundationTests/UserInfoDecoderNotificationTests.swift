import Foundation
import MailroomFoundation
import Testing

@Suite("UserInfoDecoder with real notifications: a keyboard frame change decodes from its userInfo")
struct UserInfoDecoderNotificationTests {
    private let frameBegin = CGRect(x: 0, y: 844, width: 390, height: 336)
    private let frameEnd = CGRect(x: 0, y: 508, width: 390, height: 336)

    private func keyboardNotification(
        frameBegin: Any? = nil, frameEnd: Any? = nil, curve: Any = NSNumber(value: 7)
    ) -> Notification {
        Notification(
            name: Notification.Name("UIKeyboardWillChangeFrameNotification"), object: nil,
            userInfo: [
                "UIKeyboardFrameBeginUserInfoKey": frameBegin ?? storedRect(self.frameBegin),
                "UIKeyboardFrameEndUserInfoKey": frameEnd ?? storedRect(self.frameEnd),
                "UIKeyboardAnimationDurationUserInfoKey": NSNumber(value: 0.25),
                "UIKeyboardAnimationCurveUserInfoKey": curve,
                "UIKeyboardIsLocalUserInfoKey": NSNumber(value: true),
            ])
    }

    @Test("Every field of a keyboard frame change decodes exactly")
    func keyboardFrameChangeDecodes() throws {
        let notification = keyboardNotification()
        let change = try decode(KeyboardFrameChange.self, from: try #require(notification.userInfo))
        #expect(change.frameBegin == CGRect(x: 0, y: 844, width: 390, height: 336))
        #expect(change.frameEnd == CGRect(x: 0, y: 508, width: 390, height: 336))
        #expect(change.duration == 0.25)
        #expect(change.curve == .keyboard)
        #expect(change.curve.rawValue == 7)
        #expect(change.isLocal == true)
    }

    @Test("The frames decode from CGRect structs as well as NSValues")
    func framesAsStructs() throws {
        let notification = keyboardNotification(frameBegin: frameBegin, frameEnd: frameEnd)
        let change = try decode(KeyboardFrameChange.self, from: notification.userInfo ?? [:])
        #expect(
            change
                == KeyboardFrameChange(
                    frameBegin: frameBegin, frameEnd: frameEnd, duration: 0.25, curve: .keyboard, isLocal: true))
    }

    @Test("A curve with no case is dataCorrupted at the system's key name")
    func unknownCurve() throws {
        let notification = keyboardNotification(curve: NSNumber(value: 9))
        let failure = try #require(decodingFailure(KeyboardFrameChange.self, from: notification.userInfo ?? [:]))
        #expect(failure.kind == .dataCorrupted)
        #expect(failure.path == ["UIKeyboardAnimationCurveUserInfoKey"])
    }

    @Test("A frame that is not a rect is typeMismatch at the system's key name")
    func frameOfTheWrongType() throws {
        let notification = keyboardNotification(frameEnd: NSNumber(value: 0))
        let failure = try #require(decodingFailure(KeyboardFrameChange.self, from: notification.userInfo ?? [:]))
        #expect(failure.kind == .typeMismatch)
        #expect(failure.path == ["UIKeyboardFrameEndUserInfoKey"])
        #expect(failure.type == "CGRect")
    }
}
