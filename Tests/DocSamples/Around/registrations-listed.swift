// For a sample that prints an office's registrations: makes the ones its output lists, with the ids it shows
// (the first three come and go before).
let office = PostOffice()
for _ in 1...3 {
    office.unregister(office.register { (_: CartChanged) in })
}
let owner = Badge()
office.register(badge, Badge.update)
office.register(queue: analyticsQueue) { (_: CartChanged, _: Cart?) in }
office.register(tiedTo: owner) { (_: CartChanged) in }
office.register(once: true) { (_: LaunchFinished) in }
office.register(conformingTo: Alert.self) { _ in }
office.register(on: .mainActor) { (_: LaunchFinished) in }
// SAMPLE
