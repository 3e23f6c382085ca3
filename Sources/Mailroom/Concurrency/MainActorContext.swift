import Dispatch
internal import _MailroomAtomics

/// Tells, without trapping, whether the calling code runs on the main actor.
///
/// The main actor's executor is the main queue. On Apple platforms that queue only ever runs on the main thread;
/// on Linux, once a program parks its main thread (`dispatchMain()`, or an `async` main), blocks on the main
/// queue run on other threads. So: the main thread, or a block of the main queue.
enum MainActorContext {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        mailroom_is_main_thread() || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }
}
