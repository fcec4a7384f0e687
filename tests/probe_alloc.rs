//! An engine's probes allocate nothing once the tables are open and the block cache warm:
//! counted with a global allocator around C API probes of many positions.

use canju::capi::{CANJU_FAILED, canju_free, canju_init, canju_probe_dtm, canju_probe_wdl};
use canju::generate::{GenOptions, generate_all};
use canju::index::MaterialIndex;
use canju::material::Material;
use canju::probe::Tablebase;
use canju::rules::Color;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// The system allocator, counting allocations while `COUNTING` is on.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Relaxed) {
            ALLOCATIONS.fetch_add(1, Relaxed);
        }
        // SAFETY: passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn warm_probes_allocate_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let m = Material::parse("KRKN").unwrap();
    generate_all(&Tablebase::open(dir.path()), &[m], &GenOptions::default()).unwrap();
    let boards: Vec<([u8; 90], u32)> = MaterialIndex::new(m)
        .legal_positions()
        .step_by(7)
        .map(|(_, p)| {
            (
                canju::capi::board_of(&p),
                u32::from(p.turn() == Color::Black),
            )
        })
        .collect();
    assert!(boards.len() > 50_000);
    let dirs = std::ffi::CString::new(dir.path().to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated string; boards of 90 bytes; `dtm` writable.
    unsafe {
        assert_eq!(canju_init(dirs.as_ptr()), 1);
        let mut dtm = 0;
        let mut probe_all = || {
            for (board, side) in &boards {
                assert_ne!(
                    canju_probe_dtm(board.as_ptr(), *side, &mut dtm),
                    CANJU_FAILED
                );
                assert_ne!(canju_probe_wdl(board.as_ptr(), *side), CANJU_FAILED);
            }
        };
        probe_all(); // opens the table, fills the cache
        COUNTING.store(true, Relaxed);
        probe_all();
        COUNTING.store(false, Relaxed);
        canju_free();
    }
    assert_eq!(ALLOCATIONS.load(Relaxed), 0, "allocations in warm probes");
}
