import Foundation

extension Store {
    /// Creates a store whose keys in `persistence` are restored from their files now, and saved to
    /// them after they change (see ``Persistence``).
    ///
    /// ```swift
    /// let store = Store(
    ///     initialValues: [:],
    ///     actionHandler: settingsHandler,
    ///     dependency: .live,
    ///     persistence: Persistence(folder: settingsFolder).persisting(.theme)
    /// )
    /// store[.theme]  // what the last run saved, or the key's default
    /// ```
    ///
    /// A restored value takes the place of the key's value in `initialValues`. A file that cannot
    /// be used is reported in ``persistenceErrors`` (and moved aside, unless it is of a later
    /// schema); its key then holds its value in `initialValues`, if any, else none.
    ///
    /// - Parameters:
    ///   - initialValues: The state the store starts with, by key, where no file holds a value.
    ///   - actionHandler: Changes the state for each action.
    ///   - dependency: Passed to the handler with each action.
    ///   - isolation: Where actions are handled (see ``ActionIsolation``); the handler's, unless
    ///     you say.
    ///   - persistence: Which keys are saved, and where.
    @inlinable
    public convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        isolation: ActionIsolation? = nil,
        persistence: Persistence<Key>
    ) {
        self.init(
            initialValues: initialValues, actionHandler: actionHandler, dependency: dependency, isolation: isolation,
            persister: Persister(persistence))
    }

    /// ``init(initialValues:actionHandler:dependency:isolation:persistence:)`` with the files in
    /// `backend`: a test store's memory.
    package convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        persistence: Persistence<Key>,
        backend: any PersistenceBackend
    ) {
        self.init(
            initialValues: initialValues, actionHandler: actionHandler, dependency: dependency, isolation: nil,
            persister: Persister(persistence, backend: backend))
    }

    /// A store whose persisted keys `persister` restores now and saves from now on. Inlinable, as the
    /// other initializers are, so that the key space's accessors are made for the app's key type.
    @inlinable
    convenience init(
        initialValues: [Key: Any],
        actionHandler: StoreActionHandler<Key, Action, Dependency>,
        dependency: Dependency,
        isolation: ActionIsolation?,
        persister: Persister<Key>
    ) {
        var values = initialValues.compactMapValues(flattenedOptional)
        values.merge(persister.restoredValues().compactMapValues(flattenedOptional)) { _, restored in restored }
        let core = RootCore(values: values)
        self.init(
            engine: StoreEngine(
                state: CoreAccess(core),
                queue: ActionQueue(),
                handler: actionHandler,
                dependency: dependency,
                isolation: isolation ?? actionHandler.isolation,
                forwardToParent: nil),
            persister: persister)
        persister.start(core)
    }

    /// Saves the persisted keys' changes now, and returns once they are saved.
    ///
    /// ```swift
    /// store.handle(action: .setTheme("dark"))
    /// await store.flush()  // theme.json holds "dark"
    /// ```
    ///
    /// A store made without a ``Persistence`` has nothing to save.
    public func flush() async {
        await persister?.flush()
    }

    /// Changes a persisted key's saved value as every process on the folder left it, holding the
    /// folder's lock, and sends the new value to the store as an action.
    ///
    /// ```swift
    /// // Two processes that each count their launches this way never lose one.
    /// let launches = try await store.update(.launches, sending: AppAction.launchesChanged) { $0 += 1 }
    /// ```
    ///
    /// Under the lock (an advisory `flock` of the folder's `.cachestore.lock`, which the stores of
    /// every process take to read and save the folder's files), the store's pending saves are made,
    /// the key's file is read, `transform` changes its value (the key's default where there is no
    /// file, or a bad one, moved aside and reported), and the result is saved, durably, before the
    /// lock is let go. Then the store handles `action(value)`, whose handler sets the key: the store's
    /// state changes only through actions. The store handles the actions of its updates in the order
    /// their values were saved, after the actions sent before; the action's write of the key is not
    /// saved again, unless it sets another value.
    ///
    /// - Parameters:
    ///   - key: A key of the store's ``Persistence``, of the type it is persisted as.
    ///   - action: The action that sets the key to the saved value: an action case that holds it.
    ///   - transform: Changes the value; it runs on the store's saving queue, while the lock is held,
    ///     so it must not make, flush or release a store of the same folder, which would wait for
    ///     that lock or that queue.
    /// - Returns: The value saved.
    /// - Throws: ``PersistenceError`` when the lock cannot be taken, the file is of a later schema,
    ///   or the value cannot be saved; the file and the store are then as they were. A key that is
    ///   not persisted, or of another type, stops the program with a message naming the key and the
    ///   types.
    @discardableResult
    public func update<Value: Sendable>(
        _ key: TypedKey<Key, Value>, sending action: @escaping @Sendable (Value) -> Action,
        _ transform: @escaping @Sendable (inout Value) -> Void
    ) async throws(PersistenceError) -> Value {
        guard let persister, let persisted = persister.keys[key.key] else {
            preconditionFailure("update(\(key)): the store does not persist \(ValueDump.inline(key.key))")
        }
        guard persisted.valueType == Value.self else {
            preconditionFailure(
                "update(\(key)): \(persisted.name) is persisted as \(persisted.valueType), not \(Value.self)")
        }
        // The store's keys cross threads as its state does.
        nonisolated(unsafe) let plainKey = key.key
        return try await persister.update(key, transform) { [engine] value, file, takes in
            engine.performWhereActionsAreHandled(waiting: false) {
                persister.handleUpdateAction(of: plainKey, savedFile: file, takes: takes) {
                    engine.process(action(value), from: .sent)
                }
            }
        }.get()
    }

    /// The persisted keys' files that could not be read or written, oldest first: the key, the file,
    /// the cause, and where a bad file was moved.
    ///
    /// ```swift
    /// if let error = store.persistenceErrors.last { log.warning("\(error)") }
    /// ```
    public var persistenceErrors: [PersistenceError] {
        persister?.errors ?? []
    }
}

extension Store {
    /// The value the persisted key's file holds once what is pending is saved: `nil` when there is
    /// no file, or it holds no value of the key's schema and type. For a test store.
    package func savedValue<Value>(_ key: TypedKey<Key, Value>) -> Value? {
        guard let persister, let persisted = persister.keys[key.key] else { return nil }
        persister.flushNow()
        guard case .success(let file?) = persister.folder.read(persisted.file),
            case .success(let contents) = PersistedFileFormat.read(file), contents.schema == persisted.schema
        else { return nil }
        return (try? persisted.decode(contents.payload)) as? Value
    }
}
