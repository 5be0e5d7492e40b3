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

    @inlinable
    static func == (lhs: ThreadID, rhs: ThreadID) -> Bool {
        pthread_equal(lhs.thread, rhs.thread) != 0
    }
}
