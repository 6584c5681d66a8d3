//! Given names (issue 16, private documents): the people of an e-mail, a 1:1 note or an HR
//! review are mostly named by their first name alone (`Hi Marcus,`, `Laura is interviewing
//! elsewhere`), which the title and full-name shapes of [`super::dossier`] never see.
//!
//! A list of common given names across the languages the corpus holds (English, Spanish,
//! Portuguese, French, German, Italian, Dutch, Nordic, Slavic, Indian, Chinese and Korean
//! romanisations, Japanese, Arabic, African), written for this scan. Left out on purpose:
//! names that are also common English words, months or their abbreviations, places,
//! products, AI models or programming languages (`Will`, `May`, `Jan`, `Mark`, `Grace`,
//! `Frank`, `Jordan`, `Paris`, `Victoria`, `Ruby`, `Julia`, `Ada`, `Claude`, `Gemma`,
//! `Travis`, `Jasmine`, `Ivy`), which a capitalised sentence start, a date or a tool's name
//! would count as a person.

use std::collections::HashSet;
use std::sync::LazyLock;

#[rustfmt::skip]
const GIVEN_NAMES: &[&str] = &[
    // English
    "Aaron", "Abigail", "Adam", "Alan", "Alex", "Alexander", "Alice", "Alison", "Amanda", "Amy", "Andrew",
    "Angela", "Anna", "Anne", "Anthony", "Ashley", "Barbara", "Benjamin", "Beth", "Brandon", "Brian", "Caroline",
    "Catherine", "Charles", "Chloe", "Chris", "Christopher", "Claire", "Daniel", "David", "Deborah",
    "Dennis", "Diana", "Donna", "Dorothy", "Edward", "Eleanor", "Elizabeth", "Emily", "Emma", "Eric", "Ethan",
    "Evelyn", "Fiona", "Gary", "George", "Gregory", "Hannah", "Harry", "Heather", "Helen", "Henry", "Isabella",
    "Jacob", "James", "Jane", "Janet", "Jason", "Jeffrey", "Jennifer", "Jessica", "John", "Jonathan", "Joseph",
    "Joshua", "Julie", "Justin", "Karen", "Katherine", "Kathleen", "Kelly", "Kenneth", "Kevin", "Kimberly",
    "Laura", "Lauren", "Linda", "Lisa", "Lucy", "Margaret", "Maria", "Marcus", "Martha", "Matthew", "Megan",
    "Melissa", "Michael", "Michelle", "Nancy", "Natalie", "Nathan", "Nicholas", "Nicole", "Olivia", "Oliver",
    "Pamela", "Patricia", "Paul", "Peter", "Priya", "Rachel", "Rebecca", "Richard", "Robert", "Ryan", "Samantha",
    "Samuel", "Sarah", "Scott", "Sharon", "Sophia", "Sophie", "Stephanie", "Stephen", "Steven", "Susan", "Thomas",
    "Timothy", "Tom", "Tyler", "William", "Zoe", "Dana", "Kim", "Sam", "Ben", "Dan", "Jim", "Joe",
    "Kate", "Liz", "Meg", "Nick", "Tim", "Tony", "Greg", "Jeff", "Josh", "Matt", "Mike", "Steve", "Jen", "Becky",
    "Sienna", "Harriet", "Imogen", "Nigel", "Simon", "Graham", "Ian", "Colin", "Trevor", "Derek", "Wendy",
    "Gail", "Dave", "Ravi",
    // Spanish, Portuguese
    "Alejandro", "Ana", "Andrés", "Camila", "Carlos", "Carmen", "Diego", "Elena", "Fernando", "Gabriela", "Javier",
    "Jorge", "José", "Juan", "Lucía", "Luis", "Manuel", "Marta", "Mateo", "Miguel", "Pablo", "Pedro", "Rafael",
    "Sofía", "Tomás", "Valentina", "João", "Beatriz", "Gonçalo", "Inês", "Tiago", "Rodrigo", "Paula",
    // French
    "Amélie", "Antoine", "Camille", "Céline", "Chloé", "Élodie", "François", "Guillaume", "Hélène",
    "Isabelle", "Jacques", "Julien", "Léa", "Louis", "Lucas", "Manon", "Mathieu", "Nathalie", "Nicolas", "Pierre",
    "Sébastien", "Thierry", "Valérie", "Yann",
    // German, Dutch, Nordic
    "Andreas", "Anke", "Birgit", "Dieter", "Florian", "Jens", "Jonas", "Jürgen", "Katrin", "Klaus",
    "Lukas", "Markus", "Matthias", "Monika", "Sabine", "Stefan", "Thorsten", "Ursula", "Uwe", "Wolfgang", "Anja",
    "Bram", "Daan", "Femke", "Pieter", "Sanne", "Ingrid", "Kari", "Lars", "Mikael", "Nils", "Sven", "Astrid",
    "Freya", "Kaisa", "Ilona", "Henrik", "Magnus", "Sigrid",
    // Italian
    "Alessandro", "Chiara", "Francesca", "Giorgio", "Giovanni", "Giulia", "Lorenzo", "Luca", "Marco", "Matteo",
    "Paolo", "Roberto", "Simona",
    // Slavic
    "Agnieszka", "Dmitri", "Ivan", "Katarzyna", "Marek", "Natasha", "Olga", "Pavel", "Piotr", "Sergei", "Tatiana",
    "Tomasz", "Vladimir", "Yulia",
    // Indian
    "Aarav", "Aditi", "Amit", "Ananya", "Anil", "Arjun", "Deepak", "Divya", "Kavya", "Kiran", "Neha", "Pooja",
    "Rahul", "Rajesh", "Rohan", "Sanjay", "Shreya", "Sunita", "Vikram", "Vivek", "Anjali", "Meera", "Arun",
    // Chinese, Korean romanisations
    "Wei", "Ming", "Xiaoming", "Jing", "Hui", "Yan", "Lei", "Xin", "Yuqi", "Haoran", "Minjun", "Seojun",
    "Jiwoo", "Jisoo", "Minji", "Hyun", "Jihoon", "Soyeon",
    // Japanese
    "Haruto", "Hiroshi", "Kenji", "Takeshi", "Yuki", "Yui", "Sakura", "Aiko", "Akira", "Daisuke", "Haruka",
    "Kaito", "Naoko", "Ren", "Satoshi", "Shota", "Yuto", "Keiko", "Emi",
    // Arabic, Persian, Turkish
    "Ahmed", "Ali", "Amir", "Fatima", "Hassan", "Khalid", "Layla", "Mohammed", "Omar", "Yusuf", "Zainab", "Farah",
    "Reza", "Mehmet", "Elif", "Ayşe",
    // African
    "Abena", "Amara", "Chidi", "Chinedu", "Kwame", "Ngozi", "Oluwaseun", "Tendai", "Thabo", "Zanele", "Kofi",
    "Adaeze", "Emeka",
];

static NAMES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| GIVEN_NAMES.iter().copied().collect());

/// The given names [`GIVEN_NAMES`] holds among the words of `line`, each a whole word
/// (letters only, capitalised as written: `Laura`, not `laura` or `LAURA`).
pub(super) fn given_names(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !c.is_alphabetic()).filter(|w| {
        let mut chars = w.chars();
        chars.next().is_some_and(char::is_uppercase) && chars.all(char::is_lowercase) && NAMES.contains(w)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_whole_capitalised_words_and_the_list_has_no_repeat() {
        let found: Vec<&str> =
            given_names("Hi Marcus, I spoke with Priya; laura and LAURA are not; Marcusson is not.").collect();
        assert_eq!(found, ["Marcus", "Priya"]);
        assert_eq!(NAMES.len(), GIVEN_NAMES.len(), "a name is listed twice");
    }
}
