#if Observability
// The poster's context the tests set, and how a recipient reads it.

import Instrumentation

/// A baggage item of the tests: the request a post belongs to.
enum RequestKey: ServiceContextKey {
    typealias Value = String
}

extension ServiceContext {
    /// The request that this context belongs to, if any.
    var request: String? {
        get { self[RequestKey.self] }
        set { self[RequestKey.self] = newValue }
    }

    /// A context of request `request`, or none.
    static func ofRequest(_ request: String?) -> ServiceContext? {
        guard let request else { return nil }
        var context = ServiceContext.topLevel
        context.request = request
        return context
    }
}
#endif
