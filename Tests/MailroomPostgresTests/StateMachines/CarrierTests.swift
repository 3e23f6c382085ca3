#if Postgres
import Foundation
import MailroomTestSupport
import Testing

@testable import MailroomPostgres

/// The trace context's carrier on the wire: JSON that Foundation's coders agree with, both ways.
@Suite("Carrier")
struct CarrierTests {
    /// Characters a carrier's keys and values are made of: escapes, control characters, a slash, non-ASCII letters,
    /// an emoji (a surrogate pair in `\u` escapes) and JSON's own punctuation.
    static let alphabet: [Unicode.Scalar] = [
        "a", "Z", "0", "-", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "\u{2028}",
        "😀", "{", "}", ":", ",",
    ]

    func randomCarrier(_ random: inout SplitMix64) -> [String: String] {
        func text() -> String {
            var text = String.UnicodeScalarView()
            for _ in 0..<random.below(12) { text.append(random.pick(Self.alphabet)) }
            return String(text)
        }
        var carrier: [String: String] = [:]
        for _ in 0..<random.below(4) { carrier[text()] = text() }
        return carrier
    }

    @Test("a traceparent and a tracestate are one line of JSON with sorted keys")
    func writesSortedJSON() {
        let carrier = [
            "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "congo=t61rcWkgMzE",
        ]
        #expect(
            Carrier.encode(carrier)
                == #"{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"congo=t61rcWkgMzE"}"#
        )
        #expect(Carrier.encode(["a\n\"b": "\\\u{1}"]) == #"{"a\n\"b":"\\\u0001"}"#)
    }

    @Test("what it writes, Foundation reads as the same carrier, and what Foundation writes, it reads: 2,000 carriers")
    func agreesWithFoundation() throws {
        var random = SplitMix64(seed: 27)
        let encoder = JSONEncoder()
        for _ in 0..<2000 {
            let carrier = randomCarrier(&random)
            let written = Carrier.encode(carrier)
            #expect(!written.contains("\n"))
            #expect(try JSONDecoder().decode([String: String].self, from: Data(written.utf8)) == carrier, "\(written)")
            let foundations = String(decoding: try encoder.encode(carrier), as: UTF8.self)
            #expect(Carrier.decode(foundations) == carrier, "\(foundations)")
        }
    }

    @Test("spacing, escaped slashes and surrogate pairs are read; anything but an object of strings is not")
    func readsStrictly() {
        #expect(Carrier.decode(#" { "a" : "b\/c" , "d":"\ud83d\ude00\u00e9" } "#) == ["a": "b/c", "d": "😀é"])
        #expect(Carrier.decode("{}") == [:])
        let malformed = [
            "", "not json", #"{"a":1}"#, #"{"a":"b""#, #"{"a":"b"}x"#, #"["a"]"#, #"{"a":"b",}"#, "{'a':'b'}",
            "{\"a\":\"b\nc\"}", #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\ud800\u0041"}"#, #"{"a":"\x"}"#,
            #"{"a":"\u+041"}"#, #"{"a":"\u00"}"#, #"{"a" "b"}"#, #"{"a":{"b":"c"}}"#,
        ]
        for text in malformed {
            #expect(Carrier.decode(text) == nil, "\(text)")
        }
    }
}
#endif
