//! livens on a Cortex-M4F: catalogue models stepped in `f32` and `f64` on QEMU's MPS2
//! AN386 board, every figure checked on the core and printed over semihosting, the exit
//! status the checks' verdict. `docs/embedded.md` says how to run it and what it
//! prints.
//!
//! - the pendulum in 3D with GGL-EM (a Newton solve of the two-point family): energy drift
//!   and constraint residuals;
//! - the forced oscillator with Lobatto IIIA–IIIB, s = 2 (a stage family with forces):
//!   its error against the closed-form solution;
//! - the cart-pole balanced by LQR: its step linearised and the gain computed on the
//!   core, then the nonlinear closed loop, the push set before every step;
//! - a real-time mode: a fixed Newton budget per step, each step's outcome reported,
//!   and a budget too small reported as an error with the state kept;
//! - per-step instruction counts on the emulated core, the image's flash and RAM.
#![no_std]
#![no_main]

/// Prints a line over semihosting: `hprintln!` with the format string's inline
/// arguments (`{name}`), which `hprintln!`'s `concat!` does not allow.
macro_rules! say {
    ($($arg:tt)*) => {
        cortex_m_semihosting::hprintln!("{}", format_args!($($arg)*))
    };
}

mod control;
mod counter;
mod memory;
mod runs;
mod scalar;

use control::OpenLoop;
use cortex_m_rt::{entry, exception, ExceptionFrame};
use cortex_m_semihosting::debug;
use counter::Counter;
use runs::{CartPoleBounds, OscillatorBounds, PendulumBounds, Report};

/// Steps of each pendulum run: 10 s at the paper's `h = 0.05`.
const PENDULUM_STEPS: u32 = 200;
/// Steps of each oscillator run: 20 s, the free oscillation decayed to `e⁻⁴`.
const OSCILLATOR_STEPS: u32 = 400;
/// Newton's default budget, `NewtonOptions::default().max_iterations`.
const DEFAULT_BUDGET: u32 = 40;
/// Newton's budget in the real-time runs, fixed per step so that a step's worst case is
/// the budget's, not the default 40 iterations': the most the default runs need (GGL-EM
/// on the pendulum: 5 iterations in f64 at tolerance 1e-9, 4 in f32 at 1000 ε). One
/// fewer in f64 fails at step 3, residual 2.4e-9: reported, not a panic.
const REALTIME_BUDGET_F64: u32 = 5;
const REALTIME_BUDGET_F32: u32 = 4;

// Bounds, set from the measured figures (docs/embedded.md) with margin. f64: drift
// 2.1e-14, constraints 4.4e-16; f32: drift 1.9e-5 (Newton's tolerance in f32 is
// 1.2e-4), constraints 2.4e-7. The oscillator's error is the scheme's (order 2 at
// h = 0.05): 8.3e-4 in x, 2.0e-3 in p, in both precisions; without its forces, or at
// order 1, it would be many times that.
const PENDULUM_F64: PendulumBounds = PendulumBounds {
    drift: 1e-12,
    constraint: 1e-13,
};
const PENDULUM_F32: PendulumBounds = PendulumBounds {
    drift: 1e-4,
    constraint: 2e-6,
};
const OSCILLATOR: OscillatorBounds = OscillatorBounds {
    position: 2e-3,
    momentum: 4e-3,
};

/// Control steps of each cart-pole run: 10 s at the design's `h = 0.01`.
const CART_POLE_STEPS: u32 = 1000;
// The gain designed on the core against the spec's (f64: to its printed digits; f32:
// the linearisation's and the Riccati iteration's round-off), and the cart-pole
// balanced after 10 s (the spec: 2.6e-5 from θ₀ = 0.2 with an exact plant).
const CART_POLE_F64: CartPoleBounds = CartPoleBounds {
    gain: 1e-8,
    settled: 1e-4,
};
const CART_POLE_F32: CartPoleBounds = CartPoleBounds {
    gain: 1e-3,
    settled: 1e-3,
};

#[entry]
fn main() -> ! {
    memory::paint_stack();
    let Some(peripherals) = cortex_m::Peripherals::take() else {
        say!("the core peripherals were already taken");
        exit(false);
    };
    let mut counter = Counter::start(peripherals.SYST);
    let mut report = Report::default();
    say!("livens on a Cortex-M4F (QEMU mps2-an386), semihosting");

    let calibration = counter.calibrate();
    let per_tick = calibration.instructions_per_tick;
    say!(
        "counter: SysTick, {per_tick:.3} instructions per tick over a {}-instruction loop; reading it costs {} tick(s); resolution {} instructions",
        calibration.loop_instructions,
        calibration.empty_ticks,
        counter.resolution()
    );
    // Under `-icount shift=0` a tick is a whole number of instructions (40 at 25 MHz);
    // anything else means the clock is not counting instructions and the counts below
    // would be time, not instructions.
    report.check(
        per_tick >= 1.0 && gap_to_whole(per_tick) <= 1e-3,
        format_args!("SysTick counts instructions: {per_tick:.4} per tick, a whole number"),
    );

    // The default Newton options (tolerance 1e-9 in f64, 1000 ε in f32; 40 iterations).
    let mut open = OpenLoop;
    runs::pendulum_em::<f64>(
        "default",
        &counter,
        &mut report,
        &mut open,
        PENDULUM_STEPS,
        DEFAULT_BUDGET,
        &PENDULUM_F64,
    );
    runs::pendulum_em::<f32>(
        "default",
        &counter,
        &mut report,
        &mut open,
        PENDULUM_STEPS,
        DEFAULT_BUDGET,
        &PENDULUM_F32,
    );
    runs::oscillator_lobatto::<f64>(
        &counter,
        &mut report,
        &mut open,
        OSCILLATOR_STEPS,
        &OSCILLATOR,
    );
    runs::oscillator_lobatto::<f32>(
        &counter,
        &mut report,
        &mut open,
        OSCILLATOR_STEPS,
        &OSCILLATOR,
    );

    // Control: the cart-pole's gain designed on the core, then the closed loop.
    runs::cart_pole_lqr::<f64>(&counter, &mut report, CART_POLE_STEPS, &CART_POLE_F64);
    runs::cart_pole_lqr::<f32>(&counter, &mut report, CART_POLE_STEPS, &CART_POLE_F32);

    // Real time: the same runs with the budget fixed, each step's outcome reported.
    let worst = runs::pendulum_em::<f64>(
        "real-time",
        &counter,
        &mut report,
        &mut open,
        PENDULUM_STEPS,
        REALTIME_BUDGET_F64,
        &PENDULUM_F64,
    )
    .max();
    say!("real-time f64: worst step {worst} instructions with a budget of {REALTIME_BUDGET_F64} iterations");
    let worst = runs::pendulum_em::<f32>(
        "real-time",
        &counter,
        &mut report,
        &mut open,
        PENDULUM_STEPS,
        REALTIME_BUDGET_F32,
        &PENDULUM_F32,
    )
    .max();
    say!("real-time f32: worst step {worst} instructions with a budget of {REALTIME_BUDGET_F32} iterations");
    runs::budget_exceeded::<f64>(&mut report);
    runs::budget_exceeded::<f32>(&mut report);

    let image = memory::image();
    let stack = memory::peak_stack();
    say!(
        "memory: flash {} B (text {} B, rodata {} B, data {} B); RAM {} B: statics {} B (data {} B, bss {} B) + peak stack {} B",
        image.flash,
        image.text,
        image.rodata,
        image.data,
        image.ram_static + stack,
        image.ram_static,
        image.data,
        image.bss,
        stack
    );
    report.check(
        stack > 0 && stack < memory::stack_room(),
        format_args!(
            "the stack's peak {stack} B was measured and fits the {} B left for it",
            memory::stack_room()
        ),
    );

    let (passed, failed) = report.counts();
    say!("checks: {passed} ok, {failed} failed");
    exit(failed == 0)
}

/// Distance from `x` to the nearest whole number, relative to `x`.
fn gap_to_whole(x: f64) -> f64 {
    let whole = (x + 0.5) as u64 as f64;
    (x - whole).abs() / x
}

/// Ends the emulation with semihosting's success or failure status.
fn exit(success: bool) -> ! {
    debug::exit(if success {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    // Not under a debugger or emulator that implements the exit call: stop here.
    loop {
        cortex_m::asm::bkpt();
    }
}

/// A panic (none is expected: failed steps are reported as errors) prints its message
/// and exits with the failure status.
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    say!("panic: {}", info);
    exit(false)
}

#[exception]
unsafe fn HardFault(frame: &ExceptionFrame) -> ! {
    say!("hard fault: {:?}", frame);
    exit(false)
}
