#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The publications of one write that spans several cores, told together once every core is
/// written: a scoped store's action that writes its parent's keys and keys of its own.
///
/// ```swift
/// PublicationBatch.run {
///     parentAccess.writeAll(parentKeys, &parentValues)  // its observers are not told yet
///     local.writeAll(localKeys, &localValues)
/// }  // both told now; a scope's `changes` gets one element naming both keys
/// ```
///
/// While the writes run, a ``RootCore`` that publishes hands its publication to the batch of the
/// calling thread (one thread-local read per publication, none for a write nobody observes). Once
/// they are done, the batch tells each, in order; a scope's subscriber told during that gathers its
/// keys (``GatheredKeys``), and gets them in one call at the end. No lock is held meanwhile: the
/// batch belongs to its thread, and an observer may write (its publication is told at once).
@usableFromInline
final class PublicationBatch: @unchecked Sendable {  // used by its own thread only
    private enum Phase { case writing, telling }
    private var phase = Phase.writing
    private var publications: [() -> Void] = []
    private var gathered: [() -> Void] = []

    /// The calling thread's batch, if it has one.
    @usableFromInline
    static var current: PublicationBatch? {
        guard let pointer = pthread_getspecific(publicationBatchKey) else { return nil }
        return Unmanaged<PublicationBatch>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Runs `writes`, then tells what they published, together. Inside another batch, the outer one
    /// tells.
    @usableFromInline
    static func run(_ writes: () -> Void) {
        guard current == nil else { return writes() }
        let batch = PublicationBatch()
        pthread_setspecific(publicationBatchKey, Unmanaged.passUnretained(batch).toOpaque())
        defer { pthread_setspecific(publicationBatchKey, nil) }
        withExtendedLifetime(batch) {
            writes()
            batch.phase = .telling
            var index = 0
            while index < batch.publications.count {
                batch.publications[index]()
                index += 1
            }
            index = 0
            while index < batch.gathered.count {
                batch.gathered[index]()
                index += 1
            }
        }
    }

    /// Keeps `publish` for later while the batch's writes run; `false` once they are done (publish
    /// at once).
    @usableFromInline
    func keep(_ publish: @escaping () -> Void) -> Bool {
        guard phase == .writing else { return false }
        publications.append(publish)
        return true
    }

    /// Whether subscribers told now gather their keys for one call at the end (see ``GatheredKeys``).
    var isTelling: Bool { phase == .telling }

    /// Runs `deliver` once every publication was told.
    func afterTelling(_ deliver: @escaping () -> Void) {
        gathered.append(deliver)
    }
}

/// The thread-local slot of ``PublicationBatch/current``.
@usableFromInline let publicationBatchKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// One subscriber of a scope that hears several cores (its parent's, its own): the keys they report
/// while a ``PublicationBatch`` tells are delivered in one call, as one change.
final class GatheredKeys<Key: Hashable>: @unchecked Sendable {
    private let subscriber: Subscriber<Key>
    private let lock = Lock()
    private var pending: Set<Key> = []

    init(_ subscriber: Subscriber<Key>) {
        self.subscriber = subscriber
    }

    /// Delivers `keys` now, or, while the calling thread's batch tells, with the others it gathers.
    func deliver(_ keys: Set<Key>) {
        guard let batch = PublicationBatch.current, batch.isTelling else { return subscriber.onChange(keys) }
        let isFirst = lock.withLock {
            defer { pending.formUnion(keys) }
            return pending.isEmpty
        }
        guard isFirst else { return }
        batch.afterTelling { [self] in
            let keys = lock.withLock {
                defer { pending = [] }
                return pending
            }
            if !keys.isEmpty { subscriber.onChange(keys) }
        }
    }

    func end() {
        subscriber.onEnd()
    }
}
