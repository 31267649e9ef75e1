//! Instructions executed on the emulated core, read from SysTick.
//!
//! SysTick counts core clock cycles. QEMU does not model cycles: under
//! `-icount shift=0` its virtual clock advances exactly 1 ns per guest instruction, so
//! on the MPS2 AN386 (25 MHz core clock) one SysTick tick is 40 instructions. The ratio
//! is not assumed: [`Counter::calibrate`] measures it on a loop of known length. The
//! counts are instructions, not cycles: a real Cortex-M4F takes more cycles than
//! instructions (flash wait states, 14-cycle `vdiv`/`vsqrt`, load-use stalls).
use cortex_m::peripheral::{syst::SystClkSource, SYST};

/// The largest reload value: SysTick is a 24-bit down-counter, and with this reload its
/// period is 2²⁴ ticks.
const RELOAD: u32 = 0x00FF_FFFF;

/// A tick counter on SysTick, with the measured number of instructions per tick.
///
/// An interval is the difference of two readings modulo the counter's period of 2²⁴
/// ticks (671 million instructions at 40 per tick): exact for any interval shorter than
/// that, and every interval measured here is far shorter (a step: at most about 200 000
/// instructions; the calibration loop: 4.2 million). No interrupt is involved.
pub struct Counter {
    /// Owned so that nothing else reconfigures it; read through `SYST::get_current`.
    _syst: SYST,
    instructions_per_tick: f64,
}

/// What [`Counter::calibrate`] measured.
pub struct Calibration {
    /// Instructions per SysTick tick, from the slope over two loop lengths.
    pub instructions_per_tick: f64,
    /// Instructions the loops executed for the slope.
    pub loop_instructions: u64,
    /// Ticks an empty measurement reads (the cost of reading the counter itself).
    pub empty_ticks: u64,
}

/// A reading of the counter.
#[derive(Clone, Copy)]
pub struct Reading(u32);

impl Counter {
    /// Starts SysTick on the core clock, counting down from its largest reload value,
    /// without its interrupt.
    pub fn start(mut syst: SYST) -> Self {
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        syst.disable_interrupt();
        syst.enable_counter();
        Self {
            _syst: syst,
            instructions_per_tick: 1.0,
        }
    }

    /// The counter now.
    pub fn read(&self) -> Reading {
        Reading(SYST::get_current())
    }

    /// Ticks from `start` to now: the counter counts down, modulo its period.
    pub fn since(&self, start: Reading) -> u64 {
        u64::from(start.0.wrapping_sub(SYST::get_current()) & RELOAD)
    }

    /// Measures instructions per tick on two runs of a two-instruction loop
    /// (`subs`, `bne`), `2 n` instructions for `n` iterations: the difference of the two
    /// runs cancels the counter's own reads.
    pub fn calibrate(&mut self) -> Calibration {
        const SHORT: u32 = 100_000;
        const LONG: u32 = 2_100_000;
        let empty = {
            let t0 = self.read();
            self.since(t0)
        };
        let short = self.time_loop(SHORT);
        let long = self.time_loop(LONG);
        let loop_instructions = 2 * u64::from(LONG - SHORT);
        let instructions_per_tick = loop_instructions as f64 / long.saturating_sub(short) as f64;
        self.instructions_per_tick = instructions_per_tick;
        Calibration {
            instructions_per_tick,
            loop_instructions,
            empty_ticks: empty,
        }
    }

    fn time_loop(&self, iterations: u32) -> u64 {
        let t0 = self.read();
        // SAFETY: a register-only countdown loop; it touches no memory and no stack.
        unsafe {
            core::arch::asm!(
                "2:",
                "subs {n}, {n}, #1",
                "bne 2b",
                n = inout(reg) iterations => _,
                options(nomem, nostack),
            );
        }
        self.since(t0)
    }

    /// Runs `f` and returns its result with the instructions it took (ticks times the
    /// calibrated instructions per tick, rounded; the resolution is one tick).
    pub fn measure<R>(&self, f: impl FnOnce() -> R) -> (R, u64) {
        let t0 = self.read();
        let r = f();
        let ticks = self.since(t0);
        (r, self.instructions(ticks))
    }

    /// `ticks` in instructions.
    pub fn instructions(&self, ticks: u64) -> u64 {
        (ticks as f64 * self.instructions_per_tick + 0.5) as u64
    }

    /// The calibrated instructions per tick: the counter's resolution.
    pub fn resolution(&self) -> u64 {
        self.instructions(1)
    }
}

/// Per-step instruction counts: minimum, mean and maximum.
#[derive(Clone, Copy, Default)]
pub struct Meter {
    steps: u64,
    total: u64,
    min: u64,
    max: u64,
}

impl Meter {
    /// Adds one step's count.
    pub fn add(&mut self, instructions: u64) {
        self.min = if self.steps == 0 {
            instructions
        } else {
            self.min.min(instructions)
        };
        self.max = self.max.max(instructions);
        self.total += instructions;
        self.steps += 1;
    }

    /// The largest step's count.
    pub fn max(&self) -> u64 {
        self.max
    }
}

impl core::fmt::Display for Meter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mean = self.total.checked_div(self.steps).unwrap_or(0);
        write!(
            f,
            "instructions/step min {} mean {} max {}",
            self.min, mean, self.max
        )
    }
}
