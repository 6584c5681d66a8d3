//! Given names (issue 16, private documents): the people of an e-mail, a 1:1 note or an HR
//! review are mostly named by their first name alone (`Hi Marcus,`, `Laura is interviewing
//! elsewhere`), which the title and full-name shapes of [`super::dossier`] never see.
//!
//! A list of common given names across the languages the corpus holds (English, Spanish,
//! Portuguese, French, German, Italian, Dutch, Nordic, Slavic, Indian, Chinese and Korean
//! romanisations, Japanese, Arabic, African; about 1,200, the second half grouped as `More:`),
//! written for this scan. Left out on purpose:
//! names that are also common English words, months or their abbreviations, places,
//! products, AI models or programming languages (`Will`, `May`, `Jan`, `Mark`, `Grace`,
//! `Frank`, `Jordan`, `Paris`, `Victoria`, `Ruby`, `Julia`, `Ada`, `Claude`, `Gemma`,
//! `Travis`, `Jasmine`, `Ivy`, `Hugo`, `Julian`, `Eugene`, `Zara`, `Mercedes`), which a
//! capitalised sentence start, a date, a city, a brand or a tool's name would count as a person.

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
    // More: English
    "Abbie", "Adrian", "Aidan", "Alana", "Albert", "Alfie", "Alfred", "Alicia", "Allison", "Alyssa", "Amelia",
    "Andrea", "Andy", "Angus", "Annabel", "Archie", "Arthur", "Audrey", "Barry", "Bernard", "Bethany", "Bradley",
    "Brenda", "Brett", "Bridget", "Bruce", "Bryan", "Caleb", "Callum", "Calvin", "Cameron", "Carl", "Carla", "Carol",
    "Cassandra", "Cecilia", "Charlie", "Cheryl", "Christina", "Christine", "Cindy", "Clara", "Clarissa", "Connor",
    "Conor", "Craig", "Cynthia", "Damian", "Darren", "Dean", "Debbie", "Declan", "Denise", "Dominic", "Douglas",
    "Duncan", "Dylan", "Eamon", "Eddie", "Edith", "Edwin", "Eileen", "Elaine", "Eliza", "Ella", "Ellen", "Ellie",
    "Eloise", "Emilia", "Erica", "Erin", "Esther", "Evan", "Felicity", "Finn", "Frances", "Fraser",
    "Freddie", "Gareth", "Gavin", "Geoffrey", "Gerald", "Gillian", "Gordon", "Harold", "Harvey", "Hayley", "Hugh",
    "Isaac", "Isla", "Jackie", "Jake", "Jamie", "Janice", "Jared", "Jeremy", "Jill", "Joan", "Joanna", "Joanne",
    "Jodie", "Joel", "Jonah", "Josephine", "Joyce", "Judith", "Judy", "Katie", "Kayla", "Keith", "Kerry",
    "Kieran", "Kirsty", "Kyle", "Leah", "Leon", "Leslie", "Lewis", "Liam", "Logan", "Lorna", "Louise", "Luke",
    "Lydia", "Lynn", "Malcolm", "Marian", "Marilyn", "Martin", "Maureen", "Maxine", "Melanie", "Mia", "Molly",
    "Nadia", "Naomi", "Nathaniel", "Neil", "Noah", "Norman", "Oscar", "Owen", "Patrick", "Philip", "Phillip",
    "Phoebe", "Rachael", "Ralph", "Raymond", "Rebekah", "Rhys", "Rita", "Rodney", "Roger", "Ronald", "Rosalind",
    "Roy", "Russell", "Ruth", "Sally", "Sandra", "Sean", "Shane", "Sheila", "Shirley", "Sian", "Stacey", "Stanley",
    "Stella", "Stuart", "Tamsin", "Tara", "Teresa", "Theo", "Theodore", "Tessa", "Thea", "Toby", "Tracey", "Tracy",
    "Valerie", "Vanessa", "Vincent", "Walter", "Warren", "Wayne", "Yvette", "Yvonne", "Zachary", "Kendra",
    "Keisha", "Latoya", "Tyrone", "Jamal", "Malik", "Darnell", "Terrence", "Trent", "Dustin", "Kristen", "Kristin",
    "Courtney", "Lindsay", "Lindsey", "Whitney", "Tiffany", "Heidi", "Gwen", "Tina", "Gina", "Nina", "Lena", "Lana",
    "Mandy", "Jerry", "Larry", "Terry", "Perry", "Kenny", "Danny", "Sammy", "Billy", "Bobby", "Tommy", "Jimmy",
    "Johnny", "Ricky", "Rick", "Rob", "Aoife", "Niamh", "Siobhan", "Ciara", "Saoirse", "Sinead", "Orla", "Padraig",
    "Cormac", "Fergus", "Hamish", "Ewan", "Euan", "Alastair", "Alistair", "Iain", "Morag", "Catriona", "Mhairi",
    "Bronwen", "Gwyneth", "Dafydd", "Ffion", "Cerys",
    // More: Spanish Portuguese
    "Adriana", "Alberto", "Alfonso", "Álvaro", "Antonio", "Armando", "Arturo", "Blanca", "Bruno", "Cristina",
    "Cristian", "Daniela", "Eduardo", "Emilio", "Enrique", "Esteban", "Felipe", "Francisco", "Gonzalo", "Guillermo",
    "Gustavo", "Héctor", "Ignacio", "Irene", "Isabel", "Jaime", "Joaquín", "Joaquim", "Leticia", "Lorena", "Marcela",
    "Mariana", "Mario", "Martín", "Mauricio", "Mónica", "Natalia", "Nicolás", "Nuria", "Óscar", "Raquel", "Raúl",
    "Ricardo", "Rocío", "Sergio", "Silvia", "Susana", "Verónica", "Vicente", "Víctor", "Ximena", "Yolanda", "Afonso",
    "Caio", "Duarte", "Fábio", "Filipe", "Henrique", "Leonor", "Luana", "Matheus", "Rafaela", "Thiago", "Vitória",
    "Larissa", "Letícia", "Renata", "Joana", "Fernanda", "Rogério", "Sebastián", "Agustín", "Facundo", "Florencia",
    "Valeria", "Camilo",
    // More: French
    "Adèle", "Agnès", "Alain", "Alexandre", "Anaïs", "Arnaud", "Aurélie", "Benoît", "Brigitte", "Cédric",
    "Christophe", "Clément", "Colette", "Damien", "Delphine", "Didier", "Dominique", "Émilie", "Étienne", "Fabien",
    "Fabrice", "Gaëlle", "Geneviève", "Gilles", "Inès", "Jérôme", "Laurent", "Léon", "Loïc", "Lucie",
    "Margaux", "Maxime", "Michel", "Mireille", "Nadine", "Olivier", "Pascale", "Patrice", "Philippe", "Quentin",
    "Rémi", "René", "Romain", "Sandrine", "Solène", "Stéphane", "Sylvie", "Théo", "Thibault", "Virginie", "Xavier",
    "Yves", "Zoé", "Océane", "Clémence", "Gaspard", "Baptiste", "Jean", "Marie", "Josiane", "Ghislaine", "Hervé",
    // More: German Dutch Nordic Finnish
    "Annika", "Bernd", "Claudia", "Dagmar", "Dirk", "Elke", "Erik", "Frieda", "Gerhard", "Gisela", "Günter", "Hannes",
    "Heike", "Helga", "Holger", "Ingo", "Jannik", "Johanna", "Jörg", "Kai", "Karin", "Karsten", "Kerstin",
    "Konstantin", "Leonie", "Manfred", "Maximilian", "Michaela", "Niklas", "Norbert", "Petra", "Rainer", "Ralf",
    "Reinhard", "Renate", "Rolf", "Sebastian", "Silke", "Simone", "Susanne", "Tanja", "Tobias", "Torsten", "Ulrich",
    "Ulrike", "Ute", "Volker", "Werner", "Wiebke", "Anneke", "Bas", "Bart", "Eline", "Fleur", "Gijs", "Hendrik",
    "Jeroen", "Joost", "Koen", "Lieke", "Lotte", "Maarten", "Marloes", "Niels", "Ruud", "Sander", "Sjoerd", "Thijs",
    "Wouter", "Willem", "Ilse", "Merel", "Anders", "Bjørn", "Björn", "Elin", "Frida", "Gustav", "Hanna", "Ida",
    "Johan", "Kjell", "Leif", "Linnea", "Maja", "Malin", "Mats", "Nora", "Oskar", "Ole", "Ragnar", "Rasmus", "Sofie",
    "Stig", "Tove", "Tuomas", "Ulla", "Viktor", "Aino", "Eero", "Jukka", "Juha", "Mikko", "Pekka", "Sanna", "Timo",
    "Veera", "Henrike", "Jochen", "Mareike",
    // More: Italian
    "Alessandra", "Alessia", "Angelo", "Antonella", "Beatrice", "Bianca", "Carlo", "Claudio", "Cristiano", "Daniele",
    "Davide", "Elisa", "Emanuele", "Enrico", "Fabio", "Federica", "Federico", "Filippo", "Gabriele", "Gianluca",
    "Giuseppe", "Ilaria", "Leonardo", "Manuela", "Marcello", "Martina", "Massimo", "Maurizio", "Michele", "Nicola",
    "Riccardo", "Roberta", "Salvatore", "Sara", "Serena", "Silvio", "Stefano", "Valerio", "Vittoria", "Dario", "Enzo",
    "Rocco", "Tiziana", "Loredana",
    // More: Slavic
    "Aleksandra", "Aleksei", "Alexei", "Anastasia", "Andrzej", "Bogdan", "Boris", "Darya", "Ekaterina", "Galina",
    "Igor", "Irina", "Jakub", "Jana", "Jiří", "Kamil", "Ksenia", "Łukasz", "Lukasz", "Maciej", "Magdalena", "Milena",
    "Miroslav", "Mikhail", "Nadezhda", "Nikolai", "Oksana", "Petr", "Radek", "Svetlana", "Tomáš", "Wojciech", "Yuri",
    "Zofia", "Zuzana", "Dariusz", "Krzysztof", "Paweł", "Ewa", "Dmitry", "Anton", "Taras", "Olena", "Mykola",
    // More: Indian
    "Abhishek", "Aisha", "Ajay", "Akash", "Alok", "Anand", "Ankit", "Anuj", "Aparna", "Ashok", "Bhavna", "Chetan",
    "Dinesh", "Gaurav", "Geeta", "Harish", "Harsha", "Ishaan", "Jaya", "Karan", "Kunal", "Lakshmi", "Madhu", "Mahesh",
    "Manish", "Manoj", "Nikhil", "Nisha", "Pankaj", "Prakash", "Pranav", "Preeti", "Priyanka", "Radha", "Rajiv",
    "Ramesh", "Rekha", "Ritu", "Sachin", "Sandeep", "Shalini", "Shankar", "Siddharth", "Suresh", "Swati", "Tanvi",
    "Uma", "Varun", "Vijay", "Vinod", "Yash", "Arvind", "Raj", "Sneha", "Rohit", "Naveen", "Venkat", "Lalitha",
    // More: Arabic Persian Turkish Hebrew
    "Abdullah", "Adel", "Ahmad", "Amina", "Bilal", "Dalia", "Faisal", "Hamza", "Hana", "Hussein", "Ibrahim", "Imran",
    "Karim", "Leila", "Mahmoud", "Mariam", "Maryam", "Mustafa", "Nasser", "Nour", "Rami", "Rana", "Salma", "Samir",
    "Tariq", "Waleed", "Yasmin", "Youssef", "Zaid", "Zahra", "Darius", "Farhad", "Kaveh", "Navid", "Parisa", "Shirin",
    "Ahmet", "Burak", "Deniz", "Emre", "Hakan", "Murat", "Selin", "Zeynep", "Ömer", "Yael", "Noa", "Avi", "Eitan",
    "Tamar", "Yossi", "Shira", "Moshe", "Itai",
    // More: African
    "Ade", "Adebayo", "Ayodele", "Babajide", "Chiamaka", "Chukwuemeka", "Folake", "Funmilayo", "Ifeoma", "Kemi",
    "Nkechi", "Obinna", "Olamide", "Segun", "Tunde", "Uche", "Kwesi", "Akosua", "Efua", "Themba", "Sipho",
    "Lindiwe", "Nomvula", "Tinashe", "Tatenda", "Farai", "Wanjiru", "Wambui", "Kamau", "Otieno", "Achieng", "Njeri",
    "Mwangi", "Amani", "Zawadi", "Abebe", "Tigist", "Dawit", "Chinwe", "Oluwadamilare", "Temitope", "Yetunde",
    // More: Chinese Korean Japanese Vietnamese Thai Indonesian Filipino romanisations
    "Fang", "Jian", "Jie", "Ling", "Mei", "Qiang", "Xiaoyu", "Yifan", "Zihan", "Zixuan", "Haoyu", "Jiahui",
    "Xinyi", "Yuxuan", "Wen", "Jiho", "Jimin", "Minseo", "Seoyeon", "Yuna", "Dongho", "Sungmin", "Junho", "Hyejin",
    "Eunji", "Sunhee", "Younghee", "Aoi", "Asuka", "Ayumi", "Eri", "Hanako", "Haruki", "Hideo", "Hiroko", "Hiroki",
    "Ichiro", "Kazuki", "Kenta", "Koji", "Kumiko", "Mari", "Masaki", "Mayu", "Megumi", "Miho", "Mika", "Minoru",
    "Misaki", "Naoki", "Natsuki", "Noriko", "Riko", "Ryo", "Ryota", "Saki", "Sota", "Takashi", "Takumi", "Taro",
    "Tomoko", "Yoko", "Yoshiko", "Yuka", "Yuko", "Yumi", "Yusuke", "Anh", "Linh", "Minh", "Trang", "Thao", "Huong",
    "Tuan", "Hieu", "Somchai", "Siriporn", "Niran", "Budi", "Dewi", "Putri", "Agus", "Wahyu", "Rizky", "Maricel",
    "Jocelyn", "Rowena", "Marites",
    // More: Polish, Swedish, Turkish
    "Michał", "Małgorzata", "Mateusz", "Karolina", "Bartosz", "Kamila", "Grzegorz", "Dorota", "Marcin", "Beata",
    "Wiktoria", "Szymon", "Ingela", "Pernilla", "Gunnar", "Lennart", "Birgitta", "Emine", "Fatma", "Hüseyin",
    "Hasan", "İbrahim", "Cem", "Ece", "Gizem", "Kemal", "Özlem", "Serkan", "Tolga", "Volkan", "Yasemin", "Berk",
    "Onur", "Oğuz", "Ceren", "Derya", "Esra", "Gül", "Sinan", "Tuğba", "Levent", "Aylin", "Barış", "Ebru",
    // More: Vietnamese
    "Hương", "Tuấn", "Dũng", "Hùng", "Hải", "Lan", "Phương", "Quang", "Thảo", "Thủy", "Hà", "Sơn", "Thắng", "Hòa",
    "Khánh", "Vy", "Ngọc", "Yến", "Bảo", "Nhung", "Trung", "Thanh", "Hoa", "Hiền", "Phúc",
    // More: Arabic script
    "محمد", "أحمد", "علي", "فاطمة", "عائشة", "خالد", "عمر", "يوسف", "سارة", "ليلى", "نور", "حسن", "حسين", "إبراهيم",
    "مريم", "زينب", "عبدالله", "سلمى", "هند", "رامي", "كريم", "طارق", "سامي", "ماجد", "فيصل", "منى", "ريم", "وليد",
    // More: Devanagari
    "राहुल", "प्रिया", "अमित", "सुनीता", "राजेश", "अंजलि", "विकास", "पूजा", "नेहा", "रवि", "सुरेश", "मीना", "अनिल",
    "दीपक", "संजय", "कविता", "आरती", "मनोज", "सीमा", "रमेश",
];

static NAMES: LazyLock<HashSet<&'static str>> = LazyLock::new(|| GIVEN_NAMES.iter().copied().collect());

/// The given names [`GIVEN_NAMES`] holds among the words of `line`, each a whole word
/// (letters only, capitalised as written: `Laura`, not `laura` or `LAURA`).
pub(super) fn given_names(line: &str) -> impl Iterator<Item = &str> {
    // Devanagari's vowel signs and virama are marks inside a word, not between words.
    let word_char = |c: char| c.is_alphabetic() || ('\u{0900}'..='\u{097F}').contains(&c);
    line.split(move |c: char| !word_char(c)).filter_map(|w| {
        let mut chars = w.chars();
        let first = chars.next()?;
        // A script without case (Arabic, Devanagari) has no capital to look for; Arabic
        // writes `and` (`و`) joined to the name after it.
        if first.is_uppercase() || first.is_lowercase() {
            (first.is_uppercase() && chars.all(char::is_lowercase) && NAMES.contains(w)).then_some(w)
        } else {
            [w, w.strip_prefix('و').unwrap_or(w)].into_iter().find(|n| NAMES.contains(n))
        }
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
