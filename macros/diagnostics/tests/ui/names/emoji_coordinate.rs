// rustc reports the emoji itself; the macro must not panic on the name it is handed.
livens::model! {
    pub struct Pendulum {
        coords { 🙂: Scalar }
        kinetic = 0.5 * 🙂_dot * 🙂_dot;
        potential = 0.5 * 🙂 * 🙂;
        schemes { LobattoIIIAIIIB(2) }
    }
}

fn main() {}
