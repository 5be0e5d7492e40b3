extension ActionEffect {
    /// One effect that runs all of `effects` together, or `nil` when there are none.
    ///
    /// A single effect is returned as it is, keeping its id. Several are run as one
    /// ``run(id:operation:)`` effect under a new id: each part sends its actions as they come, and
    /// immediate actions are sent first, in order.
    static func merging(_ effects: [ActionEffect]) -> ActionEffect? {
        guard effects.count > 1 else { return effects.first }
        let parts = UncheckedSendable(effects.map(\.operation))
        return .run { send in
            await withTaskGroup(of: Void.self) { group in
                for work in parts.value {
                    switch work {
                    case .action(let action):
                        send(action)
                    case .single(let operation):
                        group.addTask {
                            if let action = await operation() { send(action) }
                        }
                    case .sequence(let operation):
                        group.addTask { await operation(send) }
                    }
                }
            }
        }
    }
}
