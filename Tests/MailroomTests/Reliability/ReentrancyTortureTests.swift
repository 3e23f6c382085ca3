// Re-entrancy under load: several threads at once make top-level posts whose handlers post nested mail 50 levels
// deep, unregister registrations made before and after them, register new ones (one of which unregisters
// itself), all on one office. Every handler of a top-level post acts only on that post's own mail, so what each
// one receives is determined exactly, whatever the other threads do meanwhile; a small model of the documented
// rules computes it.

import Dispatch
import Foundation
import Mailroom
import Testing

/// Nested mail: `root` names the top-level post, `level` how deep this post is.
private struct TortureNest: Mail {
    let root: Int
    let level: Int
}

/// The registrations made for one top-level post, in the order they are made, and what they do.
///
/// Before the post, in this order: `a(0..<depth)`; the chain `c`; `b(0..<depth)`; `z`. The chain, at each level
/// `L < depth`: unregisters `a(L)` (already called at this level), registers `s(L)` (which unregisters itself the
/// first time it is called) and `n(L)`, posts level `L + 1`, then unregisters `b(L)` (not called yet at this
/// level, so it must be skipped by this post and by every post it is nested in).
private enum TortureRole {
    case a(Int)
    case chain
    case b(Int)
    case z
    case s(Int)
    case n(Int)

    /// One event of the timeline: this role received mail of `level`.
    func event(level: Int) -> Int {
        let (code, index): (Int, Int) =
            switch self {
            case .a(let index): (1, index)
            case .chain: (2, 0)
            case .b(let index): (3, index)
            case .z: (4, 0)
            case .s(let index): (5, index)
            case .n(let index): (6, index)
            }
        return code * 10_000 + index * 100 + level
    }

    static func describe(_ event: Int) -> String {
        let names = [1: "a", 2: "chain", 3: "b", 4: "z", 5: "s", 6: "n"]
        return "\(names[event / 10_000] ?? "?")(\(event % 10_000 / 100)) got level \(event % 100)"
    }
}

/// What every role must receive, in order, for one top-level post: the documented rules applied to the
/// registrations above (a post calls the registrations made before it began, in registration order, skipping
/// those unregistered by then; a nested post is delivered in full before the outer post goes on).
private func expectedTimeline(depth: Int) -> [Int] {
    var roles: [TortureRole] = (0..<depth).map { .a($0) } + [.chain] + (0..<depth).map { .b($0) } + [.z]
    var registered = [Bool](repeating: true, count: roles.count)
    var timeline: [Int] = []
    func post(_ level: Int) {
        let count = roles.count
        for index in 0..<count where registered[index] {
            timeline.append(roles[index].event(level: level))
            switch roles[index] {
            case .chain where level < depth:
                registered[level] = false
                roles += [.s(level), .n(level)]
                registered += [true, true]
                post(level + 1)
                registered[depth + 1 + level] = false
            case .s:
                registered[index] = false
            default:
                break
            }
        }
    }
    post(0)
    return timeline
}

@Suite("Re-entrancy torture from several threads at once")
struct ReentrancyTortureTests {
    @Test(
        "4 threads, 8 top-level posts each, post mail nested 50 deep whose handlers unregister themselves and others and register new recipients: it finishes, and every top-level post's nested deliveries are complete and in order"
    )
    func deeplyNestedPostsWithChurnFromSeveralThreads() {
        let threads = 4
        let rounds = 8 * stressScale
        let depth = 50
        let expected = expectedTimeline(depth: depth)
        let office = PostOffice()
        let head = Shared<[Int: [Int]]>([:])
        let headId = office.register { (nest: TortureNest) in
            head.update { $0[nest.root, default: []].append(nest.level) }
        }
        let mismatches = Shared<[String]>([])
        let finishedRoots = Shared(0)

        runOnThreads(threads, timeout: .seconds(90)) { [weak office] thread in
            guard let office else { return }
            // Odd threads post with a sender of their own, so that their exact-sender registrations take part
            // and posts walk a type route and a sender route merged.
            let device = Device("thread \(thread)")
            let withSender = !thread.isMultiple(of: 2)
            for round in 0..<rounds {
                let root = thread * 1_000 + round
                let timeline = Recorder<Int>()
                let aIds = Shared<[RecipientId]>([])
                let bIds = Shared<[RecipientId]>([])
                let laterIds = Shared<[RecipientId]>([])

                for index in 0..<depth {
                    let role = TortureRole.a(index)
                    let id =
                        withSender
                        ? office.register { (nest: TortureNest, _: Device?) in
                            if nest.root == root { timeline.record(role.event(level: nest.level)) }
                        }
                        : office.register { (nest: TortureNest) in
                            if nest.root == root { timeline.record(role.event(level: nest.level)) }
                        }
                    aIds.update { $0.append(id) }
                }
                let chainId = office.register { [weak office] (nest: TortureNest) in
                    guard nest.root == root, let office else { return }
                    let level = nest.level
                    timeline.record(TortureRole.chain.event(level: level))
                    guard level < depth else { return }
                    office.unregister(aIds.value[level])
                    let ownId = Shared<RecipientId?>(nil)
                    let selfRemoving = TortureRole.s(level)
                    ownId.value = office.register { [weak office] (nest: TortureNest) in
                        guard nest.root == root else { return }
                        timeline.record(selfRemoving.event(level: nest.level))
                        if let id = ownId.value { office?.unregister(id) }
                    }
                    let newcomer = TortureRole.n(level)
                    let newcomerId =
                        withSender
                        ? office.register(sender: device) { (nest: TortureNest, _: Device) in
                            if nest.root == root { timeline.record(newcomer.event(level: nest.level)) }
                        }
                        : office.register { (nest: TortureNest) in
                            if nest.root == root { timeline.record(newcomer.event(level: nest.level)) }
                        }
                    laterIds.update { $0 += [ownId.value!, newcomerId] }
                    if withSender {
                        office.post(TortureNest(root: root, level: level + 1), sender: device)
                    } else {
                        office.post(TortureNest(root: root, level: level + 1))
                    }
                    office.unregister(bIds.value[level])
                }
                for index in 0..<depth {
                    let role = TortureRole.b(index)
                    let id =
                        withSender
                        ? office.register(sender: device) { (nest: TortureNest) in
                            if nest.root == root { timeline.record(role.event(level: nest.level)) }
                        }
                        : office.register { (nest: TortureNest, _: Device?) in
                            if nest.root == root { timeline.record(role.event(level: nest.level)) }
                        }
                    bIds.update { $0.append(id) }
                }
                let zId = office.register { (nest: TortureNest) in
                    if nest.root == root { timeline.record(TortureRole.z.event(level: nest.level)) }
                }

                if withSender {
                    office.post(TortureNest(root: root, level: 0), sender: device)
                } else {
                    office.post(TortureNest(root: root, level: 0))
                }

                // The a's and b's were unregistered by the chain and the s's by themselves; unregistering them
                // again changes nothing.
                for id in [chainId, zId] + aIds.value + bIds.value + laterIds.value {
                    office.unregister(id)
                }
                let events = timeline.events
                if events != expected {
                    let index =
                        zip(events, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                        ?? min(events.count, expected.count)
                    let got = index < events.count ? TortureRole.describe(events[index]) : "nothing"
                    let wanted = index < expected.count ? TortureRole.describe(expected[index]) : "nothing"
                    mismatches.update {
                        $0.append(
                            "root \(root): \(events.count) events instead of \(expected.count); event \(index) is \(got), expected \(wanted)"
                        )
                    }
                }
                finishedRoots.update { $0 += 1 }
            }
        }

        #expect(finishedRoots.value == threads * rounds, "not every top-level post finished")
        #expect(mismatches.value == [])
        let levels = Array(0...depth)
        let roots = (0..<threads).flatMap { thread in (0..<rounds).map { thread * 1_000 + $0 } }
        let heard = head.value
        #expect(heard.count == roots.count)
        for root in roots {
            #expect(heard[root] == levels, "the first recipient's deliveries for top-level post \(root)")
        }
        // The timeline of one top-level post: each a(k) gets levels 0...k, each b(k) and n(k) 50 down to k + 1,
        // each s(k) level 50 only, z 50 down to 0, and the chain 0...50.
        #expect(expected.count == 1_275 + 51 + 1_275 + 51 + 50 + 1_275)
        #expect(office.registrationCount == 1)
        office.unregister(headId)
        #expect(office.registrationCount == 0)
    }
}
