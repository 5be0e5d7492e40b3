import CacheStore
import Observation
import Testing

/// A read through a scope is recorded on the scope's own subject of the key, linked to the key where
/// it is stored, and unlinked when the scope is released: its observers fire as before, and go with it.
@Suite(.timeLimit(.minutes(2))) struct ScopeObservationTests {
    @Test func aScopesObserverFiresOnEveryChangeOfItsKeyNotOnOthers() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.set(value: "y", forKey: .name)
        #expect(fired.values.isEmpty)
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
        let again = fireCount { _ = scope.get(.counter, as: Int.self) }
        scope.set(value: 2, forKey: .counter)
        #expect(again.values.count == 1)
    }

    /// One scope reading two keys, in turn and again: the first key's subject is offered for the
    /// second key's read and refused there, so each key keeps its own subject, and each observer is
    /// told of its own key's writes only, round after round.
    @Test func aScopeReadingTwoKeysTellsEachKeysObserversOfThatKeyOnly() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let scope = parent.scope(keyTransformation: featureKeys)
        for round in 1...3 {
            let counterFired = fireCount { _ = scope.get(.counter, as: Int.self) }
            let labelFired = fireCount { _ = scope.get(.label, as: String.self) }
            let bothFired = fireCount {
                _ = scope.get(.label, as: String.self)
                _ = scope.get(.counter, as: Int.self)
            }
            parent.set(value: "y\(round)", forKey: .name)
            #expect(counterFired.values.isEmpty)
            #expect(labelFired.values.count == 1)
            #expect(bothFired.values.count == 1)
            parent.set(value: round, forKey: .count)
            #expect(counterFired.values.count == 1)
            #expect(labelFired.values.count == 1)
        }
    }

    @Test func aScopesObserverOfARemovedKeyFiresWhenItComesBack() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keyTransformation: featureKeys)
        let removal = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(removal.values.count == 1)
        let comeback = fireCount { _ = scope.contains(.counter) }
        parent.set(value: 3, forKey: .count)
        #expect(comeback.values.count == 1)
        #expect(scope.get(.counter, as: Int.self) == 3)
    }

    @Test func aScopeOfAScopeIsToldOfItsKeyInTheRootAndInTheMiddleScope() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let middle = parent.scope(keyTransformation: featureKeys, defaultCache: [.localOnly: "seed"])
        let inner = middle.scope(keys: [.counter, .localOnly])
        let counterFired = fireCount { _ = inner.get(.counter, as: Int.self) }
        let localFired = fireCount { _ = inner.get(.localOnly, as: String.self) }
        parent.set(value: 1, forKey: .count)
        #expect(counterFired.values.count == 1)
        #expect(localFired.values.isEmpty)
        middle.set(value: "changed", forKey: .localOnly)
        #expect(localFired.values.count == 1)
    }

    /// Many scopes of one shared key, released first, last and from the middle of the key's list of
    /// subjects: each release leaves every other scope linked and told, and only those.
    @Test func scopesOfOneKeyReleasedInAnyOrderLeaveTheOthersLinked() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        var scopes = (0..<8).map { _ in parent.scope(keyTransformation: featureKeys) }
        var live = Array(scopes.indices)
        for released in [7, 0, 4, 2, 5, 1, 6, 3] {
            let fired = live.map { index in
                let scope = scopes[index]
                return fireCount { _ = scope.get(.counter, as: Int.self) }
            }
            let position = live.firstIndex(of: released)!
            scopes[released] = parent.scope(keyTransformation: featureKeys)  // the old one is released
            live.remove(at: position)
            var stillFired = fired
            stillFired.remove(at: position)
            parent.set(value: released + 1, forKey: .count)
            #expect(stillFired.allSatisfy { $0.values.count == 1 }, "released \(released)")
            #expect(fired[position].values.isEmpty, "the released scope \(released) was told")
        }
    }

    /// A key's own subject and its scopes' subjects are one list, the own one first, whichever read
    /// came first: every observer is told of a write and of a removal, a released scope's only not,
    /// and the removed key's slot stays for the scope still linked to it.
    @Test(arguments: [true, false])
    func aKeyReadDirectlyAndThroughScopesTellsEveryObserver(directReadFirst: Bool) {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let kept = parent.scope(keyTransformation: featureKeys)
        var released: CacheStore<FeatureKey>? = parent.scope(keyTransformation: featureKeys)
        let readDirectly = { fireCount { _ = parent.get(.count, as: Int.self) } }
        var direct = directReadFirst ? readDirectly() : nil
        let keptFired = fireCount { _ = kept.get(.counter, as: Int.self) }
        let releasedFired = fireCount { [released] in _ = released?.get(.counter, as: Int.self) }
        if direct == nil { direct = readDirectly() }
        released = nil
        parent.set(value: 1, forKey: .count)
        #expect(direct?.values.count == 1)
        #expect(keptFired.values.count == 1)
        #expect(releasedFired.values.isEmpty)

        let directAgain = readDirectly()
        let keptAgain = fireCount { _ = kept.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(directAgain.values.count == 1)
        #expect(keptAgain.values.count == 1)
        let comeback = fireCount { _ = kept.contains(.counter) }
        parent.set(value: 2, forKey: .count)
        #expect(comeback.values.count == 1)
        #expect(kept.get(.counter, as: Int.self) == 2)
    }

    @Test func aReleasedScopesObserverIsNotToldAndOtherScopesStillAre() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let kept = parent.scope(keyTransformation: featureKeys)
        let keptFired = fireCount { _ = kept.get(.counter, as: Int.self) }
        let releasedFired = Recorder<Void>()
        do {
            let released = parent.scope(keyTransformation: featureKeys)
            withObservationTracking(
                { _ = released.get(.counter, as: Int.self) }, onChange: { releasedFired.append(()) })
        }
        parent.set(value: 1, forKey: .count)
        #expect(keptFired.values.count == 1)
        #expect(releasedFired.values.isEmpty)
    }

    /// Empty slots are purged once they outnumber the keys present; one a scope's subject is linked to
    /// stays, so the scope is still told when the key appears.
    @Test func aScopesObserverOfAnAbsentKeyOutlivesAPurgeOfEmptySlots() {
        let parent = CacheStore<Key>(initialValues: [:])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.contains(.counter) }
        for index in 0..<3_000 { _ = parent.contains(.item(index)) }
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    /// Threads reading one scope's key for the first time at once each link a subject: every one
    /// stays linked, so each thread's observer is told.
    @Test func observersOfOneScopeRegisteredOnManyThreadsAtOnceAreAllTold() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = Recorder<Void>()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    withObservationTracking({ _ = scope.get(.counter, as: Int.self) }, onChange: { fired.append(()) })
                }
            }
        }
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 8)
    }

    /// Threads reading two keys of one scope for the first time at once: one subject becomes the
    /// scope's first, with no lock taken, and the others are kept by key (the first's word then says
    /// so, and reads look them up under the lock). Whichever thread wins, each observer is told of its
    /// own key's write only; round after round, with fresh scopes, so that the races vary.
    @Test func observersOfTwoKeysOfOneScopeRegisteredOnManyThreadsAtOnceAreToldOfTheirKeyOnly() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        for round in 1...20 {
            let scope = parent.scope(keyTransformation: featureKeys)
            let counterFired = Recorder<Void>()
            let labelFired = Recorder<Void>()
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<8 {
                    group.addTask {
                        if thread.isMultiple(of: 2) {
                            withObservationTracking(
                                { _ = scope.get(.counter, as: Int.self) }, onChange: { counterFired.append(()) })
                        } else {
                            withObservationTracking(
                                { _ = scope.get(.label, as: String.self) }, onChange: { labelFired.append(()) })
                        }
                    }
                }
            }
            parent.set(value: "y\(round)", forKey: .name)
            #expect(counterFired.values.isEmpty)
            #expect(labelFired.values.count == 4)
            parent.set(value: round, forKey: .count)
            #expect(counterFired.values.count == 4)
            #expect(labelFired.values.count == 4)
        }
    }

    /// Scopes made, observed and released on several threads while another writes their key: each
    /// links and unlinks its subject under the parent's lock; afterwards the key's observers work.
    @Test func scopesMadeObservedAndReleasedOnManyThreadsWhileTheKeyChanges() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<300 {
                        let row = parent.scope(keyTransformation: featureKeys)
                        withObservationTracking({ _ = row.get(.counter, as: Int.self) }, onChange: {})
                    }
                }
            }
            group.addTask { for value in 1...1_000 { parent.set(value: value, forKey: .count) } }
        }
        let kept = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = kept.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(fired.values.count == 1)
        #expect(kept.get(.counter, as: Int.self) == nil)
    }

    @Test func aStoresScopedRowIsToldOfTheActionThatWritesItsKey() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        let row = store.actionlessScope(keyTransformation: featureKeys)
        let fired = fireCount { _ = row.get(.counter, as: Int.self) }
        store.handle(action: .increment)
        #expect(fired.values.count == 1)
        #expect(row.get(.counter, as: Int.self) == 1)
    }

    /// Every key as itself: a scope that sees its parent's keys.
    static let identity: BiDirectionalTransformation<Key?, Key?> = (from: { $0 }, to: { $0 })

    // MARK: - Scopes made, observed and released on many threads

    /// Scopes are made, read observed and released on two threads while two others write, remove
    /// and purge the key they read (observed reads of many absent keys force purges).
    @Test func scopesReleasedOnOtherThreadsWhileTheKeyIsWrittenRemovedAndPurged() async {
        let root = CacheStore<Key>(initialValues: [.count: 0])
        let fired = AttackBox(0)
        await offThePool {
            onThreads(4) { thread in
                for round in 0..<2_000 {
                    switch thread {
                    case 0, 1:
                        let scope = root.scope(keyTransformation: Self.identity)
                        withObservationTracking {
                            _ = scope.get(.count, as: Int.self)
                        } onChange: {
                            fired.value += 1
                        }
                        if round.isMultiple(of: 3) {
                            let nested = scope.scope(keyTransformation: Self.identity)
                            withObservationTracking {
                                _ = nested.get(.count, as: Int.self)
                            } onChange: {
                            }
                        }
                    case 2:
                        if round.isMultiple(of: 2) {
                            root.remove(.count)
                        } else {
                            root.set(value: round, forKey: .count)
                        }
                    default:
                        withObservationTracking {
                            _ = root.get(.item(round), as: Int.self)
                        } onChange: {
                        }
                    }
                }
            }
        }
        root.set(value: -1, forKey: .count)
        #expect(root.get(.count, as: Int.self) == -1)
    }

    /// Two threads make a new scope's first observed read of a key at once (each may link a subject
    /// of its own, one then kept as replaced): a write of the key tells both observers.
    @Test func twoThreadsFirstObservedReadsOfOneScope() async {
        let root = CacheStore<Key>(initialValues: [.count: 0])
        let missed = await offThePool {
            var missed = 0
            for round in 0..<200 {
                let scope = root.scope(keyTransformation: Self.identity)
                let fired = AttackBox(0)
                onThreads(2) { _ in
                    withObservationTracking {
                        _ = scope.get(.count, as: Int.self)
                    } onChange: {
                        fired.value += 1
                    }
                }
                root.set(value: round + 1, forKey: .count)  // a new value: an equal one tells no one
                if fired.value != 2 { missed += 1 }
            }
            return missed
        }
        #expect(missed == 0)
    }

    /// One key, churned at once by: a writer that also removes it; a direct observed reader (the
    /// key's own subject, listed first); scopes whose observer releases its scope from `onChange`
    /// (unlinked during the publication that told it); and scopes of scopes, made and released. Then
    /// an observer of each kind is told of the next write once, and a scope released from the middle
    /// of the list leaves the others told.
    @Test func aKeysSubjectsUnderWritesReadsAndScopesMadeAndReleasedOnManyThreads() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        await offThePool {
            onThreads(4) { thread in
                switch thread {
                case 0:
                    for value in 1...400 {
                        if value.isMultiple(of: 10) {
                            parent.remove(.count)
                        } else {
                            parent.set(value: value, forKey: .count)
                        }
                    }
                case 1:
                    for _ in 0..<200 {
                        withObservationTracking({ _ = parent.get(.count, as: Int.self) }, onChange: {})
                    }
                case 2:
                    for _ in 0..<200 {
                        let box = AttackBox<CacheStore<FeatureKey>?>(parent.scope(keyTransformation: featureKeys))
                        let scope = box.value!
                        withObservationTracking(
                            { _ = scope.get(.counter, as: Int.self) }, onChange: { box.value = nil })
                    }
                default:
                    for _ in 0..<200 {
                        let inner = parent.scope(keyTransformation: featureKeys).scope(keys: [.counter])
                        withObservationTracking({ _ = inner.contains(.counter) }, onChange: {})
                    }
                }
            }
        }
        var scopes = (0..<3).map { _ in parent.scope(keyTransformation: featureKeys) }
        let inner = parent.scope(keyTransformation: featureKeys).scope(keys: [.counter])
        for round in 0..<2 {
            if round == 1 { scopes.remove(at: 1) }  // its subject is unlinked from the middle of the list
            let direct = fireCount { _ = parent.get(.count, as: Int.self) }
            let throughScopes = scopes.map { scope in fireCount { _ = scope.get(.counter, as: Int.self) } }
            let throughInner = fireCount { _ = inner.get(.counter, as: Int.self) }
            parent.set(value: -1 - round, forKey: .count)
            #expect(direct.values.count == 1)
            #expect(throughScopes.allSatisfy { $0.values.count == 1 })
            #expect(throughInner.values.count == 1)
        }
    }

    // MARK: - A scope released by its own observer, or by a value's deinit

    /// An observer of a scope releases the scope (its subject is notified at that moment), then
    /// writes the key again. (An observer that writes the key it observes while still observing it
    /// recurses without end, as one of an `@Observable` property does: Observation calls `onChange`
    /// before it cancels the tracking.)
    @Test func anObserverThatReleasesItsScopeAndWritesTheKey() {
        let root = CacheStore<Key>(initialValues: [.count: 0])
        let holder = AttackBox<CacheStore<Key>?>(root.scope(keyTransformation: Self.identity))
        let other = root.scope(keyTransformation: Self.identity)
        withObservationTracking {
            _ = other.get(.count, as: Int.self)
        } onChange: {
        }
        let fired = AttackBox(0)
        withObservationTracking {
            _ = holder.value?.get(.count, as: Int.self)
        } onChange: {
            fired.value += 1
            holder.value = nil
            root.set(value: 100, forKey: .count)
        }
        root.set(value: 1, forKey: .count)
        #expect(fired.value == 1)
        #expect(holder.value == nil)
        root.set(value: 2, forKey: .count)
        #expect(fired.value == 1)
    }

    /// A value whose `deinit` releases the last reference to an observed scope of the same cache: the
    /// scope unlinks its subject from the core the value is removed from.
    @Test func aValueWhoseDeinitReleasesAnObservedScopeOfTheSameCache() async {
        final class ScopeHolder: @unchecked Sendable {
            let scope: CacheStore<Key>
            init(_ scope: CacheStore<Key>) { self.scope = scope }
        }
        let root = CacheStore<Key>(initialValues: [.count: 0])
        @Sendable func holdObservedScope() {
            let scope = root.scope(keyTransformation: Self.identity)
            withObservationTracking {
                _ = scope.get(.count, as: Int.self)
            } onChange: {
            }
            root.set(value: ScopeHolder(scope), forKey: .other)
        }
        let finished = await offThePool {
            holdObservedScope()
            root.remove(.other)  // removed
            holdObservedScope()
            root.set(value: 1, forKey: .other)  // replaced
            holdObservedScope()
            root.update(.other, as: Any.self) { value in value = nil }  // updated away
            holdObservedScope()
            for index in 0..<3_000 {  // purged: the scope's key stays, its slot too
                withObservationTracking {
                    _ = root.get(.item(index), as: Int.self)
                } onChange: {
                }
            }
            root.remove(.other)
            return true
        }
        #expect(finished)
        root.set(value: 1, forKey: .count)
        #expect(root.get(.count, as: Int.self) == 1)
    }

    /// The same inside a store's handler: the handler removes the value, and the commit releases it.
    @Test func aValueReleasedByAHandlerCommitReleasesAnObservedScope() async {
        final class ScopeHolder: @unchecked Sendable {
            let scope: CacheStore<Key>
            init(_ scope: CacheStore<Key>) { self.scope = scope }
        }
        enum Action { case hold, drop, replaceAll }
        let handler = StoreActionHandler<Key, Action, Void> { state, action, _ in
            switch action {
            case .hold:
                let scope = state.scope(keyTransformation: Self.identity)
                state.set(value: ScopeHolder(scope), forKey: .other)
            case .drop:
                state.remove(.other)
            case .replaceAll:
                state = CacheStore(initialValues: [.count: 7])
            }
            return .none
        }
        let store = Store(initialValues: [.count: 0], actionHandler: handler)
        let finished = await offThePool {
            for action in [Action.hold, .drop, .hold, .replaceAll, .hold, .drop] {
                store.handle(action: action)
                if let holder = store.get(.other, as: ScopeHolder.self) {
                    withObservationTracking {
                        _ = holder.scope.get(.count, as: Int.self)
                    } onChange: {
                    }
                }
            }
            return true
        }
        #expect(finished)
        #expect(store.get(.count, as: Int.self) == 7)
    }

    // MARK: - A scope whose key moves between parent keys

    /// A scope whose mapping of one key moves between two parent keys, read observed as it moves, on
    /// two threads, while the parent writes both keys: every move's observer is told of its key.
    @Test func aScopeOverAKeyThatMovesBetweenParentKeys() async {
        let root = CacheStore<Key>(initialValues: [.count: 0, .name: 0])
        let onName = AttackBox(false)
        let transformation: BiDirectionalTransformation<Key?, Key?> = (
            from: { key in
                switch key {
                case .count: onName.value ? nil : .count
                case .name: onName.value ? .count : nil
                default: key
                }
            },
            to: { key in key == .count ? (onName.value ? .name : .count) : key }
        )
        let scope = root.scope(keyTransformation: transformation)
        await offThePool {
            onThreads(3) { thread in
                for round in 0..<1_000 {
                    switch thread {
                    case 0:
                        onName.value.toggle()
                    case 1:
                        withObservationTracking {
                            _ = scope.get(.count, as: Int.self)
                        } onChange: {
                        }
                    default:
                        root.set(value: round, forKey: .count)
                        root.set(value: round, forKey: .name)
                    }
                }
            }
        }
        // Settled: an observer of the scope's key hears the write of the parent key it maps to.
        onName.value = true
        let fired = AttackBox(false)
        withObservationTracking {
            _ = scope.get(.count, as: Int.self)
        } onChange: {
            fired.value = true
        }
        root.set(value: -1, forKey: .name)
        #expect(fired.value)
        #expect(scope.get(.count, as: Int.self) == -1)
    }

    // MARK: - A scoped store's own keys and its parent's, written by one action

    /// A scoped store with a key of its own (`defaultCache`) and one of its parent's: one action that writes
    /// both is published as one change, to the scope's observers, to the parent's, and to `changes`.
    @Suite(.timeLimit(.minutes(2))) struct ScopeLocalKeys {
        enum AppKey: Hashable, Sendable { case shared, other }

        enum FeatureKey: Hashable, Sendable { case shared, local }

        enum FeatureAction: Sendable { case write(Int) }

        /// `.shared` is the app's `.shared`; `.local` lives in the scope only.
        static let featureKeys: BiDirectionalTransformation<AppKey?, FeatureKey?> = (
            from: { key in key == .shared ? FeatureKey.shared : nil },
            to: { key in key == .shared ? AppKey.shared : nil }
        )

        /// One action writes both keys to the same number.
        static let featureHandler = StoreActionHandler<FeatureKey, FeatureAction, Void> { state, action, _ in
            switch action {
            case .write(let value):
                state.set(value: value, forKey: .shared)
                state.set(value: value, forKey: .local)
            }
            return .none
        }

        static func appAndFeature() -> (Store<AppKey, Int, Void>, Store<FeatureKey, FeatureAction, Void>) {
            let app = Store<AppKey, Int, Void>(
                initialValues: [.shared: 0], actionHandler: StoreActionHandler { _, _, _ in .none })
            let feature = app.scope(
                keyTransformation: featureKeys, actionHandler: featureHandler, defaultCache: [.local: 0])
            return (app, feature)
        }

        /// "A handler's writes become visible together when it returns": an observer of the shared key,
        /// told of the action's change, reads the scope's own key and must see the same action's write.
        @Test func aScopedStoresObserverSeesTheActionsWriteToTheScopesOwnKey() {
            let (app, feature) = Self.appAndFeature()
            let seen = Recorder<Int?>()
            withObservationTracking {
                _ = feature.get(.shared, as: Int.self)
            } onChange: {
                seen.append(feature.get(.local, as: Int.self))
            }
            feature.handle(action: .write(1))
            #expect(feature.get(.local, as: Int.self) == 1)
            #expect(seen.values == [1], "the observer of .shared saw .local as \(seen.values), the state half-written")
            withExtendedLifetime(app) {}
        }

        /// The same through the parent: an observer of the app's key reads the feature's own key.
        @Test func aParentObserverSeesTheScopedActionsWriteToTheScopesOwnKey() {
            let (app, feature) = Self.appAndFeature()
            let seen = Recorder<Int?>()
            withObservationTracking {
                _ = app.get(.shared, as: Int.self)
            } onChange: {
                seen.append(feature.get(.local, as: Int.self))
            }
            feature.handle(action: .write(7))
            #expect(seen.values == [7], "the observer of the app's .shared saw .local as \(seen.values)")
        }

        /// "Each element names the keys one write (or one Store action) changed": one action of the
        /// scoped store that writes both keys is one element naming both, for a consumer already waiting.
        @Test func aScopedStoresChangesNameBothKeysOfOneAction() async {
            let (app, feature) = Self.appAndFeature()
            let iterator = feature.changes.makeAsyncIterator()
            let received = Recorder<ChangedKeys<FeatureKey>?>()
            let consumer = Task {
                var copy = iterator
                received.append(await copy.next())
            }
            // Let the consumer wait in `next()` before the action.
            try? await Task.sleep(for: .milliseconds(300))
            feature.handle(action: .write(1))
            #expect(await eventually(timeout: .seconds(30)) { !received.values.isEmpty })
            consumer.cancel()
            await consumer.value
            let first = received.values.first ?? nil
            #expect(
                first?.contains(.shared) == true && first?.contains(.local) == true,
                "one action's element was \(String(describing: first))")
            withExtendedLifetime(app) {}
        }
    }
}
