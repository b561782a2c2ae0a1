//! Large zeroed buffers for the transposition table and the endgame database, backed by
//! transparent huge pages where the system offers them: the search reads both at random, and
//! with 4 KiB pages most of those reads would also miss the TLB.
//!
//! Platforms: the lazy anonymous mapping is Unix's (`mmap`; elsewhere the allocator's zeroed
//! memory), huge pages (`MADV_HUGEPAGE`) and the machine's memory size (`/proc/meminfo`) are
//! Linux's; other systems get normal pages and no memory check.

use std::sync::atomic::AtomicU64;

/// Alignment (and granularity) of huge pages on x86-64.
const HUGE: usize = 2 << 20;

/// A zeroed, 2 MiB-aligned buffer of `len` elements of a plain type (zero is a valid value).
pub(crate) struct ZeroBuf<T> {
    ptr: *mut T,
    len: usize,
    /// What to hand back to the system: the mapping's start and length.
    map: *mut u8,
    map_len: usize,
}

// SAFETY: the buffer owns its memory like a `Box<[T]>`.
unsafe impl<T: Send> Send for ZeroBuf<T> {}
// SAFETY: as above; shared access hands out `&[T]` only.
unsafe impl<T: Sync> Sync for ZeroBuf<T> {}

/// Element types whose all-zero bit pattern is a valid value.
// Only ever used as a bound, which the dead-code lint does not count.
#[allow(dead_code)]
pub(crate) trait Zeroable {}
impl Zeroable for u8 {}
impl Zeroable for AtomicU64 {}
impl Zeroable for std::sync::atomic::AtomicU8 {}

impl<T: Zeroable> ZeroBuf<T> {
    /// `len` zeroed elements; `None` if the memory cannot be had. Pages are handed out by the
    /// system as they are first touched, so a large buffer costs nothing up front.
    pub fn new(len: usize) -> Option<ZeroBuf<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?.max(1);
        let map_len = bytes.checked_add(HUGE)?;
        let map = map_zeroed(map_len)?;
        let offset = (map as usize).next_multiple_of(HUGE) - map as usize;
        // SAFETY: `offset < HUGE`, inside the mapping.
        let ptr = unsafe { map.add(offset) };
        advise_huge_pages(ptr, bytes);
        Some(ZeroBuf {
            ptr: ptr as *mut T,
            len,
            map,
            map_len,
        })
    }
}

/// `len` (> 0) zeroed bytes from the system: on Unix an anonymous mapping whose pages are handed
/// out as they are first touched (not reserved up front on Linux), so a large buffer costs nothing
/// until used.
#[cfg(unix)]
fn map_zeroed(len: usize) -> Option<*mut u8> {
    #[cfg(target_os = "linux")]
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE;
    #[cfg(not(target_os = "linux"))]
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
    // SAFETY: an anonymous private mapping with no address hint; checked for failure.
    let map = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            -1,
            0,
        )
    };
    (map != libc::MAP_FAILED).then_some(map as *mut u8)
}

/// Hands back what [`map_zeroed`] gave.
///
/// # Safety
/// `map` and `len` are those of one [`map_zeroed`] call, handed back once.
#[cfg(unix)]
unsafe fn unmap(map: *mut u8, len: usize) {
    // SAFETY: the caller's promise.
    unsafe {
        libc::munmap(map as *mut libc::c_void, len);
    }
}

/// `len` (> 0) zeroed bytes from the allocator (no lazy mapping outside Unix).
#[cfg(not(unix))]
fn map_zeroed(len: usize) -> Option<*mut u8> {
    let layout = std::alloc::Layout::from_size_align(len, 1).ok()?;
    // SAFETY: a layout of non-zero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    (!p.is_null()).then_some(p)
}

/// Hands back what [`map_zeroed`] gave.
///
/// # Safety
/// `map` and `len` are those of one [`map_zeroed`] call, handed back once.
#[cfg(not(unix))]
unsafe fn unmap(map: *mut u8, len: usize) {
    // SAFETY: the caller's promise: the layout of the allocation.
    unsafe { std::alloc::dealloc(map, std::alloc::Layout::from_size_align_unchecked(len, 1)) }
}

/// Asks for transparent huge pages over `bytes` from `ptr` (Linux's `MADV_HUGEPAGE`); elsewhere
/// the buffer keeps the system's normal pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    // SAFETY: advice on our own mapping; failure (no huge pages) is harmless.
    unsafe {
        libc::madvise(ptr as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

impl<T> std::ops::Deref for ZeroBuf<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised (zeroed) elements, aligned, owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> std::ops::DerefMut for ZeroBuf<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, with unique access through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for ZeroBuf<T> {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, handed back once.
        unsafe { unmap(self.map, self.map_len) }
    }
}

impl ZeroBuf<std::sync::atomic::AtomicU8> {
    /// The same bytes as plain `u8`s, once no thread writes them any more.
    pub fn into_plain(self) -> ZeroBuf<u8> {
        let out = ZeroBuf {
            ptr: self.ptr as *mut u8,
            len: self.len,
            map: self.map,
            map_len: self.map_len,
        };
        // `AtomicU8` has the size, alignment and bit validity of `u8`; the mapping moves to `out`.
        std::mem::forget(self);
        out
    }
}

/// Hints the processor to fetch the cache line holding `*p`.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Bytes of physical memory of this machine (`MemTotal` of `/proc/meminfo`), if the system says:
/// on Linux only; elsewhere `None`, and the solver's memory check is skipped.
#[cfg(target_os = "linux")]
pub(crate) fn physical_memory() -> Option<u128> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u128 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb << 10)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn physical_memory() -> Option<u128> {
    None
}
