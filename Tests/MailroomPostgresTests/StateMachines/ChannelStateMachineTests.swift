#if Postgres
import Testing

@testable import MailroomPostgres

/// One channel's reading, driven through each of its transitions without a database.
@Suite("Channel state machine")
struct ChannelStateMachineTests {
    func row(_ sequence: Int64, body: String? = nil) -> Outbox.Row {
        Outbox.Row(
            sequence: sequence, origin: "o", link: 9, echo: false, linkedName: "N", body: body ?? "\(sequence)")
    }

    /// The tag of the machine's tables.
    static let tag = "0a1b2c3d"

    /// A notification of `sequence` alone, from the tables of `tag`.
    func number(_ sequence: Int64, tag: String = tag) -> String {
        "\(tag)\n\(sequence)"
    }

    /// A notification that carries the whole of `row`, from the tables of `tag`.
    func whole(_ row: Outbox.Row, tag: String = tag) -> String {
        "\(tag)\n\(row.sequence)\n\(row.link)\n\(row.echo ? "t" : "f")\n\(row.origin)\n\(row.linkedName)\n\(row.body)"
    }

    func missed(_ sequences: ClosedRange<Int64>) -> ChannelStateMachine.Action {
        .report(PostgresLinkError(.missedMail, channel: "c", sequences: sequences))
    }

    /// A machine positioned at `last`.
    func machine(at last: Int64) -> ChannelStateMachine {
        var machine = ChannelStateMachine(channel: "c", tag: Self.tag)
        machine.positioned(at: last)
        return machine
    }

    @Test("it needs its position once; a later position does not move it")
    func positionOnce() {
        var machine = ChannelStateMachine(channel: "c", tag: Self.tag)
        #expect(machine.needsPosition)
        machine.positioned(at: 4)
        #expect(!machine.needsPosition)
        machine.positioned(at: 9)
        #expect(machine.last == 4)
        #expect(machine.listened() == [.read(after: 4)])
    }

    @Test("the next mail, whole in its notification, is delivered from it")
    func nextWholeMailIsDelivered() {
        var machine = machine(at: 4)
        #expect(machine.notified(whole(row(5))) == [.deliver(row(5))])
        #expect(machine.last == 5)
    }

    @Test("a notification of mail delivered already is dropped")
    func oldNotificationsAreDropped() {
        var machine = machine(at: 4)
        #expect(machine.notified(whole(row(4))) == [])
        #expect(machine.notified(number(3)) == [])
        #expect(machine.last == 4)
    }

    @Test("a gap, or a notification that carries only the number, makes it read the outbox after its last")
    func gapsAndNumbersRead() {
        var machine = machine(at: 4)
        #expect(machine.notified(whole(row(7))) == [.read(after: 4)])
        #expect(machine.notified(number(5)) == [.read(after: 4)])
        #expect(machine.last == 4)
    }

    @Test("a notification no link wrote is reported, and the outbox read")
    func malformedNotifications() {
        let tagged = ["0", "-3", "x", "5\nnot-a-number\nt\no\nN\n{}", "5\n9\nmaybe\no\nN\n{}", "5\n9\nt\no"]
        let untagged = ["", "x", "5", "a1b2\n5", "zzzzzzzz\n5"]
        for payload in untagged + tagged.map({ "\(Self.tag)\n\($0)" }) {
            var machine = machine(at: 4)
            #expect(
                machine.notified(payload)
                    == [
                        .report(PostgresLinkError(.malformedNotification, channel: "c", detail: payload)),
                        .read(after: 4),
                    ], "\(payload.debugDescription)")
        }
    }

    @Test("a page of the outbox is delivered in order, without what was delivered already")
    func pagesAreDelivered() {
        var machine = machine(at: 4)
        #expect(
            machine.read([row(3), row(4), row(5), row(6)], complete: true) == [.deliver(row(5)), .deliver(row(6))])
        #expect(machine.last == 6)
    }

    @Test("a page that is not the whole of it is followed by a read after its last")
    func incompletePagesReadOn() {
        var machine = machine(at: 0)
        #expect(
            machine.read([row(1), row(2)], complete: false) == [.deliver(row(1)), .deliver(row(2)), .read(after: 2)])
    }

    @Test("numbers the outbox skips were pruned: they are reported as missed before the mail after them")
    func prunedGapsAreReported() {
        var machine = machine(at: 4)
        #expect(machine.read([row(8), row(9)], complete: true) == [missed(5...7), .deliver(row(8)), .deliver(row(9))])
    }

    @Test("mail announced by a notification and gone from the outbox is reported as missed, up to what was announced")
    func announcedAndPrunedIsMissed() {
        var machine = machine(at: 4)
        #expect(machine.notified(number(10)) == [.read(after: 4)])
        #expect(
            machine.read([row(5), row(6)], complete: true) == [.deliver(row(5)), .deliver(row(6)), missed(7...10)])
        #expect(machine.last == 10)
        #expect(machine.notified(whole(row(11))) == [.deliver(row(11))])
    }

    @Test("a body keeps its newlines; an echo flag and a link id are read")
    func notificationsParse() throws {
        let sent = Outbox.Row(sequence: 12, origin: "api/1", link: -5, echo: true, linkedName: "A.B", body: "x\ny\nz")
        let notification = try #require(Notification(whole(sent)))
        #expect(notification.sequence == 12)
        #expect(notification.row == sent)
        #expect(Notification(number(12))?.sequence == 12)
        #expect(Notification(number(12))?.row == nil)
        #expect(Notification(number(12))?.tag == Self.tag)
    }

    @Test("a capital flag carries the poster's context on the line after the origin: T for an echo, F for not")
    func contextsParse() throws {
        let echo = try #require(Notification("\(Self.tag)\n5\n9\nT\no\n{\"k\":\"v\"}\nN\nbody"))
        #expect(
            echo.row
                == Outbox.Row(
                    sequence: 5, origin: "o", link: 9, echo: true, linkedName: "N", body: "body",
                    context: #"{"k":"v"}"#))
        let other = try #require(Notification("\(Self.tag)\n6\n-9\nF\napi/1\nctx\nA.B\n{}"))
        #expect(
            other.row
                == Outbox.Row(
                    sequence: 6, origin: "api/1", link: -9, echo: false, linkedName: "A.B", body: "{}", context: "ctx"))
        #expect(Notification(whole(row(7)))?.row?.context == nil, "a small flag carries none")
    }

    @Test("after a context, the body keeps its newlines")
    func bodiesAfterAContextKeepTheirNewlines() throws {
        let notification = try #require(Notification("\(Self.tag)\n5\n9\nF\no\nctx\nN\nx\ny\n\nz\n"))
        #expect(notification.row?.context == "ctx")
        #expect(notification.row?.linkedName == "N")
        #expect(notification.row?.body == "x\ny\n\nz\n")
    }

    @Test("the next mail, whole with its context in its notification, is delivered with it")
    func nextMailWithAContextIsDelivered() {
        var machine = machine(at: 4)
        var sent = row(5, body: "a\nb")
        sent.context = "ctx"
        #expect(machine.notified("\(Self.tag)\n5\n9\nF\no\nctx\nN\na\nb") == [.deliver(sent)])
        #expect(machine.last == 5)
    }

    @Test("an unknown flag, or a capital flag without a context, a name and a body, is reported and the outbox read")
    func malformedFlagsAndContexts() {
        let payloads = [
            "5\n9\nx\no\nN\n{}", "5\n9\nx\no\nctx\nN\n{}", "5\n9\nTT\no\nctx\nN\n{}", "5\n9\nT\no\nctx\nN",
            "5\n9\nF\no\nN", "5\n9\nT\no", "5\n9\nF",
        ]
        for payload in payloads.map({ "\(Self.tag)\n\($0)" }) {
            #expect(Notification(payload) == nil, "\(payload.debugDescription)")
            var machine = machine(at: 4)
            #expect(
                machine.notified(payload)
                    == [
                        .report(PostgresLinkError(.malformedNotification, channel: "c", detail: payload)),
                        .read(after: 4),
                    ], "\(payload.debugDescription)")
        }
    }

    @Test("a notification of other tables, on a channel of the same name, is not this link's: it is dropped")
    func otherTablesAreIgnored() {
        var machine = machine(at: 4)
        #expect(machine.notified(whole(row(5), tag: "ffff0000")) == [])
        #expect(machine.notified(number(9, tag: "ffff0000")) == [])
        #expect(machine.last == 4)
        #expect(machine.notified(whole(row(5))) == [.deliver(row(5))])
    }
}
#endif
