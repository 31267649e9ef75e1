//! The image's flash and RAM use, from cortex-m-rt's linker symbols, and the stack's
//! high-water mark, from a painted stack.
use cortex_m::register::msp;

extern "C" {
    static __vector_table: u32;
    static __etext: u32;
    static __srodata: u32;
    static __erodata: u32;
    static __sdata: u32;
    static __edata: u32;
    static __sidata: u32;
    static __sbss: u32;
    static __ebss: u32;
    static __euninit: u32;
    static _stack_start: u32;
}

/// The word the unused stack is painted with.
const PAINT: u32 = 0xA5C3_5A3C;
/// Bytes below the painting function's stack pointer left unpainted (its own frame's
/// callees, none of which are expected, and margin).
const MARGIN: usize = 256;

macro_rules! addr {
    ($symbol:ident) => {
        // Only the symbol's address is taken; the symbol is never read.
        core::ptr::addr_of!($symbol) as usize
    };
}

/// Section sizes in bytes.
pub struct Image {
    /// Vector table and code.
    pub text: usize,
    /// Constants.
    pub rodata: usize,
    /// Initialised statics (in RAM, their initial values in flash).
    pub data: usize,
    /// Zeroed and uninitialised statics.
    pub bss: usize,
    /// The whole image in flash: from the vector table to the end of `.data`'s initial
    /// values.
    pub flash: usize,
    /// Statics in RAM: `.data`, `.bss` and `.uninit`.
    pub ram_static: usize,
}

/// The image's sections, from the linker's symbols.
pub fn image() -> Image {
    let data = addr!(__edata) - addr!(__sdata);
    Image {
        text: addr!(__etext) - addr!(__vector_table),
        rodata: addr!(__erodata) - addr!(__srodata),
        data,
        bss: addr!(__ebss) - addr!(__sbss),
        flash: addr!(__sidata) + data - addr!(__vector_table),
        ram_static: addr!(__euninit) - addr!(__sdata),
    }
}

/// The free RAM between the statics and the stack pointer: `[start, end)`.
fn free_stack() -> (usize, usize) {
    let start = (addr!(__euninit) + 3) & !3;
    let end = (msp::read() as usize - MARGIN) & !3;
    (start, end)
}

/// Fills the RAM below the current stack pointer with [`PAINT`]: whatever the program
/// later pushes overwrites it, and [`peak_stack`] finds the lowest word touched.
pub fn paint_stack() {
    let (start, end) = free_stack();
    let mut a = start;
    while a < end {
        // SAFETY: `[start, end)` lies between the last static and the stack pointer
        // (minus a margin): RAM that nothing owns until the stack grows into it.
        unsafe { (a as *mut u32).write_volatile(PAINT) };
        a += 4;
    }
}

/// The deepest the stack has reached since [`paint_stack`], in bytes from its top.
pub fn peak_stack() -> usize {
    let (start, end) = free_stack();
    let mut a = start;
    // SAFETY: reads of RAM between the statics and the stack pointer.
    while a < end && unsafe { (a as *const u32).read_volatile() } == PAINT {
        a += 4;
    }
    addr!(_stack_start) - a
}

/// The RAM the stack may grow into: from the end of the statics to the stack's top.
pub fn stack_room() -> usize {
    addr!(_stack_start) - addr!(__euninit)
}
