/// Every lock the package's libraries make, what each guards, and how they nest.
///
/// | lock | kind | guards |
/// | --- | --- | --- |
/// | `RootCore.lock` | per key space | a key space's values, observation marks, subscribers and update turns |
/// | `ActionQueue.lock` | per store tree | the work queued for the tree's turn; each engine's reference to its effects |
/// | `EffectRunner.lock` | per store | a store's ``EffectScheduler`` and the runner's reference to its engine |
/// | `ChangeBuffer.lock` | per `changes` iterator | the keys waiting for one iterator, and its waiters |
/// | `Subscription.lock` | per subscription | whether a subscription was cancelled, and its cancel hooks |
/// | `GatheredKeys.lock` | per scope subscriber | the keys one publication batch gathered for a scope's subscriber |
/// | `Locked.lock` | per ``Locked`` | the state inside it |
/// | `quickEqualityCache` (process 1) | process | the equality checks made, by type |
/// | `scopeSubjectsLock` (process 2) | process | every scope's subjects of the keys read through it |
/// | `scopeLocalCreationLock` (process 3) | process | every scope's lazily made store of keys of its own |
/// | `TestStoreFailure.lock` (process 4) | process | the failure handler every test store reports to |
/// | `PumpRegistry.entries` (process 5) | process | which test stores each test's task uses (a ``Locked``) |
/// | `Persister.state` | per persisted store | the keys to save, the errors so far (a ``Locked``) |
/// | `PersistedMemory.files` | per persisted test store | the files a test store keeps in memory (a ``Locked``) |
/// | `JournalRecorder.lock` | per recording | a journal's file, the recorded keys' values and hash, its problems |
///
/// `Locked` is used by: a test store's received actions and settings, its effect pump, a test
/// clock, the pump registry, a persisted store's ``Persister``, and a test store's persisted memory.
///
/// **Order.** No lock is taken while another of these is held: each is held only to read or change
/// what it guards, and user code (handlers, observers, closures, a value's `deinit`) runs with none
/// held. The one nesting is outside the package: recording an observed read calls the Observation
/// framework's registrar (its own lock) while `RootCore.lock` is held; the registrar never calls back.
/// Waiting (a `ConditionLock`'s wait, an update turn's semaphore) happens with no other lock held,
/// and only on a thread that holds no turn (see ``ActionQueue``).
///
/// **Checks.** `Lock` and `ConditionLock` are error-checking mutexes in debug builds, and every result
/// of the platform's calls is checked there: relocking, or unlocking a lock another thread holds,
/// stops the program with a message. A test (`LockCatalogueTests`) fails when a library source makes a
/// lock this table does not list.
enum LockCatalogue {
    /// One entry of the table: the file that makes the lock, and its name there.
    struct Entry: Hashable, Sendable {
        let file: String
        let name: String
    }

    /// The locks of the table, by the file that makes each.
    static let entries: Set<Entry> = [
        Entry(file: "Sources/CacheStore/Storage/RootCore.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Engine/ActionQueue.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Effects/EffectRunner.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Observation/CacheStoreChanges.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Storage/Subscription.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Storage/PublicationBatch.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Internal/Locked.swift", name: "lock"),
        Entry(file: "Sources/CacheStore/Debug/QuickEquality.swift", name: "quickEqualityCache"),
        Entry(file: "Sources/CacheStore/Storage/ScopedCore.swift", name: "scopeSubjectsLock"),
        Entry(file: "Sources/CacheStore/Storage/ScopedCore.swift", name: "scopeLocalCreationLock"),
        Entry(file: "Sources/CacheStoreTesting/Reporting/TestStoreFailure.swift", name: "lock"),
        Entry(file: "Sources/CacheStoreTesting/Scheduling/EffectPump.swift", name: "entries"),
        Entry(file: "Sources/CacheStoreTesting/Scheduling/EffectPump.swift", name: "state"),
        Entry(file: "Sources/CacheStoreTesting/Clock/TestClock.swift", name: "state"),
        Entry(file: "Sources/CacheStoreTesting/TestStore/TestStore.swift", name: "received"),
        Entry(file: "Sources/CacheStoreTesting/TestStore/TestStore.swift", name: "settings"),
        Entry(file: "Sources/CacheStore/Persistence/Persister.swift", name: "state"),
        Entry(file: "Sources/CacheStoreTesting/Persistence/PersistedMemory.swift", name: "files"),
        Entry(file: "Sources/CacheStore/Journal/JournalRecorder.swift", name: "lock"),
    ]
}
