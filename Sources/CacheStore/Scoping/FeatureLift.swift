/// Where a feature sits in an app: which of the app's keys are the feature's, and which case of the
/// app's action carries the feature's actions. From one lift come the feature's part of the app's
/// handler (``handler(_:dependency:)``), a store of the feature's own for its views
/// (``Store/view(_:label:)``), and the app's ids of the feature's effects (``effectID(_:)``).
///
/// ```swift
/// enum ListKey: Hashable { case posts, page }
/// enum ListAction { case refresh, loaded([String]) }
///
/// let list = FeatureLift(keys: [ListKey.posts: AppKey.posts, .page: .listPage], action: AppAction.list)
///
/// let appHandler = StoreActionHandler<AppKey, AppAction, AppDependency>(combining: [
///     list.handler(listHandler, dependency: { app in app.list }),
///     appCoreHandler,
/// ])
/// let appStore = Store(initialValues: [:], actionHandler: appHandler, dependency: .live)
/// let listStore = appStore.view(list)          // a Store<ListKey, ListAction, Void>
/// listStore.handle(action: .refresh)           // the app handles .list(.refresh)
/// appStore.cancel(id: list.effectID(ListID.fetch))
/// ```
///
/// - Keys: a feature key `s` is the app key `p` exactly when `to(s) == p` and `from(p) == s`, the
///   rule of ``CacheStore/scope(keyTransformation:defaultCache:)``; the `keys:` and `appKeys:` forms
///   make both directions from one list.
/// - Actions: `action` is the app's case that wraps a feature action, used as a function
///   (`AppAction.list`). An app action is the feature's when it is that case: the lift reads its
///   case by reflection, as `if case .list(let action) = appAction` would. On a path where an
///   action's cost matters, ``init(label:keyTransformation:extractAction:embedAction:)`` takes the
///   `if case` closure instead.
/// - Effect ids: the lift is a namespace. Every id the feature gives its effects runs in it, so a
///   feature lifted twice keeps its effects apart, and the app reaches one through ``effectID(_:)``.
///
/// ## Topics
///
/// ### Making a lift
///
/// - ``init(label:keys:action:)``
/// - ``init(label:appKeys:action:)``
/// - ``init(label:keyTransformation:extractAction:embedAction:)``
/// - ``label``
///
/// ### Using a lift
///
/// - ``handler(_:dependency:)``
/// - ``handler(_:)``
/// - ``effectID(_:)``
/// - ``Store/view(_:label:)``
public struct FeatureLift<
    Key: Hashable & SendableMetatype, Action, FeatureKey: Hashable & SendableMetatype, FeatureAction
>: Sendable {
    /// The lift's name: in the ids of its effects (`list/ListID.fetch`) and the debug log.
    public let label: String?
    @usableFromInline let keyTransformation: BiDirectionalTransformation<Key?, FeatureKey?>
    @usableFromInline let extractAction: @Sendable (Action) -> FeatureAction?
    @usableFromInline let embedAction: @Sendable (FeatureAction) -> Action
    @usableFromInline let effects: EffectLift

    /// A lift with each direction of keys and actions spelled out.
    ///
    /// ```swift
    /// let search = FeatureLift<AppKey, AppAction, SearchKey, SearchAction>(
    ///     keyTransformation: (
    ///         from: { appKey in appKey == .query ? .query : nil },
    ///         to: { searchKey in searchKey == .query ? .query : nil }
    ///     ),
    ///     extractAction: { appAction in if case .search(let action) = appAction { action } else { nil } },
    ///     embedAction: AppAction.search
    /// )
    /// ```
    ///
    /// - Parameters:
    ///   - label: The lift's name, shown in the ids of its effects.
    ///   - keyTransformation: Maps keys between the app (`from`) and the feature (`to`).
    ///   - extractAction: The feature action an app action carries, or `nil` when it is not the feature's.
    ///   - embedAction: Wraps a feature action as an app action.
    public init(
        label: String? = nil,
        keyTransformation: BiDirectionalTransformation<Key?, FeatureKey?>,
        extractAction: @escaping @Sendable (Action) -> FeatureAction?,
        embedAction: @escaping @Sendable (FeatureAction) -> Action
    ) {
        self.label = label
        self.keyTransformation = keyTransformation
        self.extractAction = extractAction
        self.embedAction = embedAction
        effects = EffectLift(label: label)
    }

    /// A lift whose feature keys are the app keys they are paired with, and whose actions are one
    /// case of the app's action.
    ///
    /// ```swift
    /// let list = FeatureLift(keys: [ListKey.posts: AppKey.posts, .page: .listPage], action: AppAction.list)
    /// ```
    ///
    /// Two feature keys paired with one app key are a programming error, which stops the program
    /// with both keys named.
    ///
    /// - Parameters:
    ///   - label: The lift's name, shown in the ids of its effects.
    ///   - keys: Each feature key, with the app key it reads and writes.
    ///   - action: The app's case that wraps a feature action (`AppAction.list`).
    public init(label: String? = nil, keys: [FeatureKey: Key], action: @escaping @Sendable (FeatureAction) -> Action) {
        let pairs = KeyPairs(keys)
        let extraction = EnumCaseExtraction(embed: action)
        self.init(
            label: label,
            keyTransformation: (from: { $0.flatMap { pairs.feature[$0] } }, to: { $0.flatMap { pairs.app[$0] } }),
            extractAction: { extraction.payload(of: $0) }, embedAction: action)
    }

    /// A lift whose feature uses the app's keys in `keys`, and whose actions are one case of the
    /// app's action.
    ///
    /// ```swift
    /// let session = FeatureLift(appKeys: [AppKey.token, .userID], action: AppAction.session)
    /// ```
    ///
    /// - Parameters:
    ///   - label: The lift's name, shown in the ids of its effects.
    ///   - appKeys: The app keys the feature reads and writes; the others are invisible to it.
    ///   - action: The app's case that wraps a feature action (`AppAction.session`).
    public init(label: String? = nil, appKeys: Set<Key>, action: @escaping @Sendable (FeatureAction) -> Action)
    where FeatureKey == Key {
        self.init(label: label, keys: Dictionary(uniqueKeysWithValues: appKeys.map { ($0, $0) }), action: action)
    }

    /// The feature's part of the app's handler: `featureHandler` runs, on the feature's keys, for
    /// each app action that is the feature's, and its effects send app actions.
    ///
    /// ```swift
    /// let appHandler = StoreActionHandler(combining: [list.handler(listHandler, dependency: { app in app.list }), core])
    /// ```
    ///
    /// As ``StoreActionHandler/scope(label:keyTransformation:actionHandler:extractAction:embedAction:dependencyTransformation:)``,
    /// which is this method with the lift made on the spot.
    ///
    /// - Parameters:
    ///   - featureHandler: The feature's handler.
    ///   - dependency: Derives the feature's dependency from the app's.
    /// - Returns: The lifted handler.
    @inlinable
    public func handler<Dependency, FeatureDependency>(
        _ featureHandler: StoreActionHandler<FeatureKey, FeatureAction, FeatureDependency>,
        dependency: @escaping @Sendable (Dependency) -> FeatureDependency
    ) -> StoreActionHandler<Key, Action, Dependency> {
        let runner = ScopedHandlerRun<Key, FeatureKey>(
            toParent: keyTransformation.to, fromParent: keyTransformation.from)
        let (extractAction, embedAction, effects) = (extractAction, embedAction, effects)
        return StoreActionHandler(
            { state, action, appDependency in
                guard let featureAction = extractAction(action) else { return nil }
                let effect = runner.run(
                    featureHandler, on: state, action: featureAction, dependency: dependency(appDependency))
                return effect?.mapped(embedAction, renaming: { $0.renamingGiven(effects.id) })
            }, lift: effects, isolation: featureHandler.isolation)
    }

    /// The feature's part of the app's handler, for a feature that needs no dependency.
    ///
    /// ```swift
    /// let appHandler = StoreActionHandler<AppKey, AppAction, AppDependency>(combining: [counter.handler(counterHandler)])
    /// ```
    ///
    /// - Parameter featureHandler: The feature's handler.
    /// - Returns: The lifted handler.
    @inlinable
    public func handler<Dependency>(_ featureHandler: StoreActionHandler<FeatureKey, FeatureAction, Void>)
        -> StoreActionHandler<Key, Action, Dependency>
    {
        handler(featureHandler, dependency: { _ in () })
    }

    /// The id under which the app's store runs the feature's effect `id`: what the app cancels.
    ///
    /// ```swift
    /// appStore.cancel(id: list.effectID(ListID.fetch))   // stops this lift's fetch only
    /// ```
    ///
    /// - Parameter id: The id the feature gives its effect.
    /// - Returns: The id the app's store runs the effect under.
    public func effectID(_ id: AnyHashable) -> AnyHashable {
        effects.id(id)
    }
}

/// A feature's keys paired with the app's, looked up both ways: values it only compares, so read
/// across threads although the keys need not be `Sendable`.
struct KeyPairs<Key: Hashable, FeatureKey: Hashable>: @unchecked Sendable {
    /// The app key of each feature key.
    let app: [FeatureKey: Key]
    /// The feature key of each app key.
    let feature: [Key: FeatureKey]

    init(_ pairs: [FeatureKey: Key]) {
        app = pairs
        feature = Dictionary(pairs.map { ($1, $0) }) { first, second in
            let appKey = pairs[first].map { ValueDump.inline($0) } ?? "?"
            preconditionFailure(
                "FeatureLift: the feature keys \(ValueDump.inline(first)) and \(ValueDump.inline(second)) are both "
                    + "paired with the app key \(appKey); pair each app key with one feature key.")
        }
    }
}
