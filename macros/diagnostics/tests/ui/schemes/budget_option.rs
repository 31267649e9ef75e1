// The one option of `schemes` is a budget, a count of temporaries.
livens::model! {
    pub struct Oscillator {
        coords { x: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = 0.5 * x * x;
        schemes(budget = 0) { GglEm }
    }
}

livens::model! {
    pub struct Spring {
        coords { x: Scalar }
        kinetic = 0.5 * x_dot * x_dot;
        potential = 0.5 * x * x;
        schemes(bugdet = 20000) { GglEm }
    }
}

fn main() {}
