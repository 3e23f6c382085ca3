import Foundation
import Mailroom
import MailroomTesting
import XCTest

/// MailRecorder used from XCTest: its waits are plain `async throws` functions.
final class MailRecorderXCTests: XCTestCase {
    func testNextReturnsMailPostedFromAnotherThread() async throws {
        let office = PostOffice()
        let device = Device("device")
        let recorder = MailRecorder(office, recording: [Ping.self])
        Thread {
            office.post(Pong(n: 0))
            office.post(Ping(n: 1))
            office.post(Ping(n: 2), sender: device)
        }.start()

        let entries = try await recorder.next(2, timeout: .seconds(10))

        XCTAssertEqual(entries.compactMap { ($0.mail as? Ping)?.n }, [1, 2])
        XCTAssertEqual(entries.map { senderName($0.sender) }, ["nil", "device"])
        XCTAssertEqual(recorder.mail(of: Ping.self), [Ping(n: 1), Ping(n: 2)])
        XCTAssertEqual(recorder.mail(of: Ping.self, sentBy: Device.self).map(\.mail.n), [2])
    }
}
