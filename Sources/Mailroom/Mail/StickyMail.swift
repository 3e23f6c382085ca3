/// Mail whose last post of each sender the office keeps, for registrations made later to receive: see
/// ``PostOffice/replayStickyMail(to:)``. Every post of a `StickyMail` type is sticky, however it is posted (the
/// office checks the mail's dynamic type, once per type); for mail of other types, post with
/// ``PostOffice/post(_:sticky:)-6s6b7``.
public protocol StickyMail: Mail {}
