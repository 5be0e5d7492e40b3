#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The identity of a thread, for telling whether the caller is the thread that does something now.
@usableFromInline
struct ThreadID: Equatable, @unchecked Sendable {
    @usableFromInline let thread: pthread_t

    /// The calling thread.
    @inlinable
    static var current: ThreadID {
        ThreadID(thread: pthread_self())
    }

    @inlinable
    init(thread: pthread_t) {
        self.thread = thread
    }

    /// The thread as one machine word, never `0`, with its lowest bit clear (`pthread_t` is the
    /// address of the thread's descriptor): for ``ActionQueue``'s turn word.
    @inlinable
    var word: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: thread)
        #else
            UInt(thread)
        #endif
    }

    /// The thread whose ``word`` is `word`.
    @inlinable
    init(word: UInt) {
        #if canImport(Darwin)
            thread = pthread_t(bitPattern: word).unsafelyUnwrapped
        #else
            thread = pthread_t(word)
        #endif
    }

    @inlinable
    static func == (lhs: ThreadID, rhs: ThreadID) -> Bool {
        pthread_equal(lhs.thread, rhs.thread) != 0
    }
}
