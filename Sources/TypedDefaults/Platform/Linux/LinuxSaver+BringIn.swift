#if os(Linux)
    import Foundation

    // Bringing what others saved into this process (`SavedChangeInbox`), outside the save's locks.
    extension LinuxSaver {
        /// Queues what a look found that someone else saved (see `SavedChangeInbox.queue`). With `saving`
        /// (a save's writes, now in the file), the save is done with them: they stop being in flight.
        func queueBringIn(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:], in save: inout SaveState) {
            inbox.queue(changed, saving: saving, in: &save)
            if !saving.isEmpty { pending.saved() }
        }

        /// Puts what others saved into this process, through the context's commit path, except names this
        /// process saved over it or has written and not saved yet, then tells observers. Called with no
        /// lock held: an observer may write and save.
        func bringInQueuedAndDeliver() {
            bringInQueued().deliver()
        }

        /// Brings the queued changes into memory and returns what observers must hear.
        func bringInQueued() -> [Announcement] {
            inbox.bringInQueued(isUnsaved: pending.hasUnsavedWrite(forName:))
        }
    }
#endif
