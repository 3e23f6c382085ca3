// Evidence that a handler runs on the main actor.

import Dispatch

/// A key whose value is set on the main queue only. On Linux the main actor executes on the main queue (on
/// whatever thread drains it), so a block that reads the key there runs on the main actor.
let mainQueueMarker: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// True when the caller runs on the main queue, that is on the main actor.
func isOnMainQueue() -> Bool {
    DispatchQueue.getSpecific(key: mainQueueMarker) == true
}

/// Called from a handler that claims to run on the main actor: it compiles only in a main-actor context, and
/// tells whether the main queue is really the one running.
@MainActor
func mainActorEvidence() -> Bool {
    isOnMainQueue()
}
