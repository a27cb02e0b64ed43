//! The kernel's collector of unix sockets in flight, set off after every
//! run by both sides (process 1 of a container once the run is gone, and
//! the grader once its guard is done).

use std::io;

/// Sets off the kernel's collector of unix sockets in flight. A socket
/// passed over a unix socket, in a cycle no process holds, outlives every
/// process of its run, with its buffers, the descriptors it carries and
/// what they count against the run user (inotify instances, say), until
/// the collector runs; closing a new cycle at once makes it run. Done after
/// every run (its processes are gone by then), so that nothing a run left
/// in flight adds up over a grading or starves a later run.
pub(super) fn collect_in_flight() {
    use rustix::net::{
        AddressFamily, SendAncillaryBuffer, SendAncillaryMessage, SendFlags, SocketFlags, SocketType,
        sendmsg, socketpair,
    };
    use std::mem::MaybeUninit;
    use std::os::fd::AsFd;
    let Ok((one, other)) = socketpair(AddressFamily::UNIX, SocketType::STREAM, SocketFlags::CLOEXEC, None)
    else {
        return;
    };
    let carried = [one.as_fd()];
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    if control.push(SendAncillaryMessage::ScmRights(&carried)) {
        let _ = sendmsg(&other, &[io::IoSlice::new(b"x")], &mut control, SendFlags::empty());
    }
}
