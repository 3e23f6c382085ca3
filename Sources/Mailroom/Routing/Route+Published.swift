extension Route {
    /// The two words through which posts reach a route without a lock. The only code that computes an address
    /// in them.
    ///
    /// Layout, in words: `[entries, attention]`
    /// - `entries`: the address of the route's current ``EntryWords``. A writer fills new entries before it
    ///   stores their address here with a release store; a post loads it with an acquire load.
    /// - `attention`: what a post along the route does besides delivering (``Attention``); 0 for most routes.
    ///   Written before the route is published and never changed, so read plainly.
    ///
    /// Tables publish a route by the address of the first word. A handle, not an owner: the route frees the
    /// words (``deallocate()``) once nothing can reach them.
    struct Published {
        /// The first word: what tables store for a post to find.
        let address: UnsafeMutablePointer<UInt>

        @inline(__always)
        init(address: UnsafeMutablePointer<UInt>) {
            self.address = address
        }

        /// New words that publish `entries`, for a route not published yet.
        static func allocate(entries: EntryWords, attention: Attention) -> Published {
            let published = Published(address: .allocate(capacity: 2))
            published.entriesWord.initialize(to: UInt(bitPattern: entries.address))
            published.attentionWord.initialize(to: attention.rawValue)
            return published
        }

        func deallocate() {
            address.deallocate()
        }

        /// What a post along the route does besides delivering.
        @inline(__always)
        var attention: Attention {
            Attention(rawValue: attentionWord.pointee)
        }

        /// The current entries, up to the count published in them now.
        @inline(__always)
        func loadEntries() -> EntryWords {
            let entries = AtomicWord(entriesWord).loadAcquire()
            return EntryWords.published(at: UnsafeMutablePointer(bitPattern: entries).unsafelyUnwrapped)
        }

        /// Makes `entries`, fully written, the route's current entries for every post that starts after this.
        func publish(_ entries: EntryWords) {
            AtomicWord(entriesWord).storeRelease(UInt(bitPattern: entries.address))
        }

        @inline(__always)
        private var entriesWord: UnsafeMutablePointer<UInt> { address }

        @inline(__always)
        private var attentionWord: UnsafeMutablePointer<UInt> { address + 1 }
    }
}
