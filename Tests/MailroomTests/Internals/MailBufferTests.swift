import Testing

@testable import Mailroom

@Suite("MailBuffer: what a mail sequence's loop takes, and when it ends")
struct MailBufferTests {
    /// The loop over `buffer`, as a `MailSequence` runs it, collecting what it takes until it ends.
    private static func loop(_ buffer: MailBuffer<Int>) -> Task<[Int], Never> {
        Task {
            var batch: [Int] = []
            var index = 0
            var taken: [Int] = []
            while let letter = await buffer.next(batch: &batch, index: &index) {
                taken.append(letter)
            }
            return taken
        }
    }

    @Test("Mail appended before the loop reads comes out in order, all of it, then the loop ends after finish()")
    func unboundedKeepsEverythingInOrder() async {
        let buffer = MailBuffer<Int>(policy: .unbounded)
        for letter in 0..<1000 {
            buffer.append(letter)
        }
        buffer.finish()
        let taken = await finish("the loop") { await Self.loop(buffer).value }
        #expect(taken == Array(0..<1000))
    }

    @Test(
        "A bounded buffer counts only the mail the loop has not taken: .bufferingNewest(2) after 1, 2, 3 gives 2, then 4, 5"
    )
    func boundedPolicyCountsUntakenMail() async {
        let buffer = MailBuffer<Int>(policy: .bufferingNewest(2))
        var batch: [Int] = []
        var index = 0
        buffer.append(1)
        buffer.append(2)
        buffer.append(3)
        let first = await buffer.next(batch: &batch, index: &index)
        buffer.append(4)
        buffer.append(5)
        let second = await buffer.next(batch: &batch, index: &index)
        let third = await buffer.next(batch: &batch, index: &index)
        #expect([first, second, third] == [2, 4, 5])
    }

    @Test(".bufferingOldest(2) keeps the first two of five, and a limit of 0 keeps nothing while no loop waits")
    func oldestAndZeroLimits() async {
        let oldest = MailBuffer<Int>(policy: .bufferingOldest(2))
        let none = MailBuffer<Int>(policy: .bufferingNewest(0))
        for letter in 1...5 {
            oldest.append(letter)
            none.append(letter)
        }
        oldest.finish()
        none.finish()
        #expect(await finish("the loop over .bufferingOldest(2)") { await Self.loop(oldest).value } == [1, 2])
        #expect(await finish("the loop over .bufferingNewest(0)") { await Self.loop(none).value } == [])
    }

    @Test("A loop that waits gets the next mail handed over, even with a limit of 0, in post order")
    func waitingLoopGetsMailDirectly() async {
        let buffer = MailBuffer<Int>(policy: .bufferingNewest(0))
        let loop = Self.loop(buffer)
        for letter in 1...3 {
            await eventually("the loop to wait for mail \(letter)") { buffer.hasWaitingLoop }
            buffer.append(letter)
        }
        await eventually("the loop to wait again") { buffer.hasWaitingLoop }
        buffer.finish()
        #expect(await finish("the loop") { await loop.value } == [1, 2, 3])
    }

    @Test("Finishing ends a waiting loop, drops later mail, and calls onFinish once, also when set afterwards")
    func finishEndsTheLoopOnce() async {
        let buffer = MailBuffer<Int>(policy: .unbounded)
        let calls = Shared(0)
        buffer.onFinish { calls.update { $0 += 1 } }
        let loop = Self.loop(buffer)
        await eventually("the loop to wait") { buffer.hasWaitingLoop }
        buffer.finish()
        buffer.finish()
        buffer.append(1)
        #expect(await finish("the loop") { await loop.value } == [])
        let lateCalls = Shared(0)
        buffer.onFinish { lateCalls.update { $0 += 1 } }
        #expect(calls.value == 1)
        #expect(lateCalls.value == 1)
    }

    @Test("Cancelling the task of a waiting loop ends it with nil and finishes the buffer")
    func cancellingTheLoopFinishesTheBuffer() async {
        let buffer = MailBuffer<Int>(policy: .unbounded)
        let finished = Shared(false)
        buffer.onFinish { finished.update { $0 = true } }
        let loop = Self.loop(buffer)
        await eventually("the loop to wait") { buffer.hasWaitingLoop }
        loop.cancel()
        #expect(await finish("the cancelled loop") { await loop.value } == [])
        #expect(finished.value)
    }

    @Test(
        "A cancelled loop ends after what was buffered, even while mail keeps coming: later mail is dropped"
    )
    func cancelledLoopEndsWhileMailKeepsComing() async {
        let buffer = MailBuffer<Int>(policy: .unbounded)
        for letter in 0..<3 {
            buffer.append(letter)
        }
        let loop = Task {
            var batch: [Int] = []
            var index = 0
            var taken: [Int] = []
            while let letter = await buffer.next(batch: &batch, index: &index) {
                taken.append(letter)
                if taken.count == 1 {
                    withUnsafeCurrentTask { $0?.cancel() }
                }
                // Never lets the buffer run dry, so the loop never waits, where a cancellation handler would run.
                if taken.count < 100 {
                    buffer.append(1000 + taken.count)
                }
            }
            return taken
        }
        #expect(await finish("the cancelled loop") { await loop.value } == [0, 1, 2, 1001, 1002, 1003])
    }
}
