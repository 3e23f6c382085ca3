#if Postgres && Observability
import Foundation
import InMemoryTracing
import MailroomPostgres
import Tracing

/// What every link of the benchmark injects and extracts contexts with: an `InMemoryTracer` that keeps no record
/// of what it injects or extracts. No span is started (the links' received-mail spans are off), so the traced path
/// costs what carrying a context costs: its injection and JSON, its bytes on the wire, its decoding and extraction.
let tracing = InMemoryTracer(recordInjections: false, recordExtractions: false)

/// The poster's context on the traced path: a trace id and a span id of W3C's lengths (32 and 16 hexadecimal
/// digits), which the tracer injects as two entries.
let traceContext: ServiceContext = {
    var context = ServiceContext.topLevel
    context.inMemorySpanContext = InMemorySpanContext(
        traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7", parentSpanID: nil)
    return context
}()

/// The bytes the traced path's mail carries more than the plain link's: the context's JSON and the line it takes in
/// the notification (the link encodes the carrier the same way).
let traceCarrierBytes: Int = {
    var carrier: [String: String] = [:]
    tracing.inject(traceContext, into: &carrier, using: DictionaryInjector())
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return ((try? encoder.encode(carrier))?.count ?? 0) + 1
}()

private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

/// A link's configuration with the origin `origin` and the benchmark's tracer.
func linkConfiguration(origin: String) -> PostgresLink.Configuration {
    var configuration = PostgresLink.Configuration(origin: origin)
    configuration.telemetry = .init(tracer: tracing)
    return configuration
}
#endif
