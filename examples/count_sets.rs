//! Prints how many material sets and index slots there are up to N men.
fn main() {
    for men in 2..=6 {
        let sets = canju::material::Material::all_up_to(men);
        let slots: u64 = sets
            .iter()
            .map(|m| canju::index::MaterialIndex::new(*m).size())
            .sum();
        println!("{men} men: {} sets, {slots} slots per side", sets.len());
    }
}
