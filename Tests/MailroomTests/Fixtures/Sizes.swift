// How much work the stress and randomized tests do.

import Foundation

/// How much bigger than the default the stress and randomized tests run: `MAILROOM_STRESS_SCALE=10 swift test`
/// makes them do ten times the work. The default (1) keeps the whole suite within seconds.
let stressScale = max(1, Int(ProcessInfo.processInfo.environment["MAILROOM_STRESS_SCALE"] ?? "") ?? 1)
