//! The pool's unwind guard: what a thread set while it works is put back
//! if the work panics.

/// Runs its closure when dropped, unless disarmed: undoes what a thread set
/// while it works (a page being loaded or written, a pin) if the work
/// unwinds, so that no panic leaves a state others wait on.
pub(super) struct Undo<F: FnOnce()>(pub(super) Option<F>);

impl<F: FnOnce()> Undo<F> {
    /// Done: nothing to undo.
    #[inline]
    pub(super) fn disarm(mut self) {
        self.0 = None;
    }

    /// Runs the closure now.
    #[inline]
    pub(super) fn now(mut self) {
        if let Some(f) = self.0.take() {
            f()
        }
    }
}

impl<F: FnOnce()> Drop for Undo<F> {
    #[inline]
    fn drop(&mut self) {
        if let Some(f) = self.0.take() {
            f()
        }
    }
}
