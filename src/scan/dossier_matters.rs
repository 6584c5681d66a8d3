//! Words of personal or undisclosed matters in the languages beyond [`super::words::MATTERS_SRC`]
//! and [`super::roles::MORE_MATTERS_SRC`] (issue 16, twelfth round): pay, dismissal, sick leave,
//! illness and hospital, pregnancy, divorce, lawyers and courts, debts, loans, rent and eviction,
//! police, complaints, depression, inheritance, warnings and discipline; about 60 languages.
//! Stems (`зарплат` for every form of the word): a match counts the stem once, as
//! [`super::MATTERS`] counts its words. Data: one string per language group, its stems apart
//! by `|` (plain text, escaped when the pattern is built); a stem short enough to start a
//! common word of another language (`dolg` in `dolgo` "long", `nuom` in `nuomone`
//! "opinion", `politi` in Danish `politik`) is given in its longer forms.

/// Stems starting with an ASCII letter: matched at a word's start, ASCII letters folding case
/// (`(?i-u)`, as [`super::MATTERS`] explains).
#[rustfmt::skip]
pub(super) const ASCII_STEMS: &[&str] = &[
    // Croatian, Bosnian, Serbian (Latin)
    "plać|plaću|otkaz|bolovanj|bolest|dijagnoz|bolnic|liječenj|lečenj|trudn|razvod|odvjetni|advokat|tužb|dugovanj|najamnin|stanarin|deložacij|policij|depresij|nasljedstv|nasledstv|upozorenj|disciplinsk",
    // Slovenian
    "plač|odpoved|bolnišk|bolezen|diagnoz|bolnišnic|zdravljenj|noseč|ločitev|ločitv|odvetni|tožb|dolgov|posojil|najemnin|opomin|pritožb",
    // Slovak
    "mzd|výpove|práceneschopn|diagnóz|nemocnic|liečb|tehotn|rozvod|advokát|súdn|dlžn|dlhov|nájom|exekúci|políci|sťažnos|depresi|dedičstv|napomenut|disciplinárn",
    // Czech
    "nemocensk|nemoc|léčb|těhotn|soud|dluh|nájem|nájemn|exekuc|polici|stížnost|depres|dědictv|důtk|vyhazov",
    // Hungarian
    "fizetés|elbocsát|felmond|táppénz|betegszabadság|beteg|diagnózis|kórház|terhes|válás|bíróság|tartozás|lakbér|kilakoltat|rendőrség|panasz|depresszió|figyelmeztet|fegyelmi",
    // Romanian
    "salariu|salarii|salarial|concedier|demisi|concediu medical|boal|bolnav|spital|tratament|divorț|divort|datori|chiri|evacuar|poliți|politi|plânger|depresi|moșteni|avertisment|disciplinar",
    // Albanian
    "rrog|pushuar nga puna|pushim nga puna|sëmur|diagnoz|trajtim|shtatzën|divorc|avokat|gjykat|borxh|qira|polici|ankes|depresion|trashëgimi",
    // Lithuanian
    "atlyginim|atleid|nedarbingum|ligonin|gydym|nėšč|skyryb|teism|skolos|skolą|skolų|skolin|paskol|nuomos|iškeldin|skund|paveldėjim|drausmin",
    // Latvian
    "algas|atlaišan|atlaist|slimīb|slimnīc|grūtniec|advokāt|tiesā|tiesas|parād|aizdevum|izlikšan|sūdzīb|mantojum|brīdinājum|disciplinār",
    // Estonian
    "palga|palk|vallandam|vallandat|haigusleh|haigus|diagnoos|haigla|rasedus|lahutus|advokaat|kohtu|võlg|võla|laenu|väljatõst|politsei|kaebus|depressioon|pärand|hoiatus|distsiplinaar",
    // Icelandic
    "uppsögn|veikind|sjúkrahús|meðferð|skilnað|lögfræðing|dómstól|skuld|húsaleig|lögregl|kvörtun|arfur",
    // Danish, Norwegian, Faroese
    "løn|lønn|fyret|afskedig|opsigelse|sygemeld|sykemeld|sygdom|sykdom|skilsmisse|retssag|gæld|gjeld|husleje|husleie|udsættelse|utkastelse|politiet|politianmeld|advarsel|uppsøgn|skilnaður|løgregl",
    // Afrikaans, Dutch
    "afdank|siekverlof|siekte|hospitaal|swanger|egskeiding|prokureur|hofsaak|lening|huurachterstand|uitzetting|politie|klacht|klagte|depressie|erfenis|waarskuwing|waarschuwing|echtscheiding|voogdij|ziekenhuis|ziek",
    // Catalan, Galician
    "salari|acomiadament|baixa mèdica|malaltia|diagnòstic|tractament|embarassad|divorci|advocat|judici|deute|préstec|lloguer|desnonament|queixa|depressió|herència|amonestació|enfermidade|avogado|débeda|aluguer|desafiuzamento|herdanza",
    // Basque
    "soldata|kaleratze|gaixotasun|gaixo|diagnostiko|ospitale|tratamendu|haurdun|dibortzio|abokatu|epaitegi|zorr|mailegu|alokair|kexa|herentzia|ohartarazpen",
    // Irish, Welsh, Maltese
    "tuarastal|saoire bhreoiteachta|tinneas|ospidéal|cóireáil|torrach|colscaradh|dlíodóir|cúirt|fiacha|iasacht|cíos|díshealbhú|gearán|dúlagar|oidhreacht|cyflog|diswydd|salwch|ysbyty|triniaeth|beichiog|ysgariad|cyfreithiwr|dyled|benthyciad|rhent|heddlu|cwyn|iselder|etifeddiaeth|rhybudd|salarju|tkeċċ|sptar|tqila|divorzju|qorti|dejn|pulizija|ilment|dipressjoni",
    // Indonesian, Malay, Javanese
    "gaji|pemecatan|dipecat|PHK|cuti sakit|rumah sakit|pengobatan|hamil|perceraian|cerai|pengacara|peguam|gugatan|pengadilan|mahkamah|utang|hutang|pinjaman|tunggakan|penggusuran|polisi|keluhan|aduan|depresi|warisan|surat peringatan|teguran|meteng|pegatan",
    // Filipino, Cebuano
    "sahod|sweldo|suweldo|tinanggal sa trabaho|ospital|paggamot|buntis|mabdos|hiwalay|pautang|renta|pulis|reklamo|depresyon|babala",
    // Swahili
    "mshahara|kufukuzwa|likizo ya ugonjwa|ugonjwa|hospitali|matibabu|mjamzito|ujauzito|talaka|wakili|mahakama|madeni|deni la|mkopo|kodi ya nyumba|malalamiko|urithi",
    // Yoruba, Hausa
    "gbèsè|owó oṣù|agbẹjọ́rò|albashi|kora daga aiki|rashin lafiya|asibiti|lauya|kotu|lamuni|korafi",
    // Zulu, Xhosa
    "iholo|umholo|umvuzo|ukuxoshwa|ukugxothwa|ukugula|isibhedlela|isibhedlele|ukhulelwe|isehlukaniso|ummeli|igqwetha|inkantolo|inkundla|isikweletu|amaphoyisa|amapolisa|isikhalazo",
    // Somali, Kinyarwanda, Malagasy
    "mushahar|laga eryay|jirro|xanuun|isbitaal|daaweyn|furiin|qareen|maxkamad|deyn|amaah|booliis|cabasho|dhaxal|umushahara|kwirukanwa|uburwayi|ibitaro|gutwita|gutandukana|umwunganizi|urukiko|inguzanyo|ubukode|ikirego|umurage|karama|noroahina|aretina|hopitaly|fitsaboana|bevohoka|fisaraham-panambadiana|mpisolovava|fitsarana|trosa|hofan-trano|fitarainana",
    // Uzbek, Azerbaijani, Turkish
    "maosh|ishdan bo'shat|kasallik|tashxis|kasalxona|davolash|homilador|ajrash|qarz|ijara|politsiya|shikoyat|depressiya|meros|ogohlantirish|intizomiy|işdən çıxar|xəstəlik|diaqnoz|xəstəxana|müalicə|hamilə|boşanma|vəkil|məhkəmə|borc|kirayə|miras|xəbərdarlıq|intizam|hastane|tedavi|borç|kira bedeli|depresyon|ihtarname",
    // Kurdish (Kurmanji), Maori, Samoan, Luxembourgish, Haitian
    "meaş|nexweşî|nexweşxane|jinberdan|parêzer|dadgeh|māuiui|hōhipera|roia|kōti|pirihimana|amuamu|totogi|falemai|ma'itaga|loia|faamasinoga|aitalafu|leoleo|Entloossung|Spidol|Scheedung|Affekot|Geriicht|Scholden|maladi|lopital|ansent|divòs|avoka|tribinal|dèt|lwaye|plent",
    // Vietnamese
    "bệnh viện|chẩn đoán|ly hôn|khoản vay|tiền thuê nhà|công an|khiếu nại|trầm cảm|thừa kế|cảnh cáo|nợ",
];

/// Stems starting with a letter beyond ASCII: matched as written, anywhere (their scripts
/// mark no word start the byte-mode `\b` sees).
#[rustfmt::skip]
pub(super) const OTHER_STEMS: &[&str] = &[
    // Greek
    "μισθ|απόλυσ|παραίτησ|άδεια ασθενείας|ασθένει|διάγνωσ|νοσοκομεί|θεραπεί|εγκυμοσύν|έγκυ|διαζύγι|δικηγόρ|δικαστήρι|χρέος|χρέη|οφειλ|δάνει|ενοίκι|έξωσ|αστυνομί|πειθαρχικ|καταγγελί|κατάθλιψ|καρκίν|κληρονομ",
    // Ukrainian
    "зарплат|звільнен|лікарнян|хвороб|діагноз|лікарн|лікуван|вагітн|розлуч|адвокат|судов|борг|кредит|оренд|виселен|поліці|догана|скарг|депресі|спадщин|спадок|заборгован",
    // Russian
    "увольнен|уволи|больничн|болезн|госпитал|лечени|беременн|развод|опек|судебн|задолженност|долгов|аренд|выселен|полици|жалоб|депресси|наследств|алимент",
    // Bulgarian
    "заплат|уволн|болничн|болест|диагноза|болниц|лечение|бременн|съдебн|дълг|заем|наем|полиция|жалба|депреси",
    // Serbian, Macedonian (Cyrillic), Belarusian
    "зарад|отказ|боловањ|дијагноз|лечењ|лијечењ|трудн|тужб|дуговањ|кириј|полициј|жалб|депресиј|боледувањ|бремен|заробак|звальнен|хвароб|бальніц|лячэнн|цяжарн|адвакат|доўг|крэдыт|арэнд|міліцы|спадчын",
    // Kazakh, Kyrgyz, Tajik
    "жалақы|жұмыстан шығар|ауру|аурухана|емдеу|жүкті|ажырас|қарыз|несие|жалға|шағым|мұра|айлык|оорукана|кош бойлуу|ажыраш|карыз|ижара|арыз|маош|бемор|беморхона|табобат|ҳомиладор|талоқ|қарз|иҷора|милитсия|шикоят",
    // Mongolian
    "цалин|ажлаас халагд|өвчин|онош|эмнэлэг|эмчилгээ|жирэмсэн|гэр бүл салал|өмгөөлөгч|шүүх|зээл|түрээс|цагдаа|гомдол|сэтгэл гутрал|өв залгамжл|сануулга|сахилгын",
    // Armenian
    "աշխատավարձ|աշխատանքից ազատ|հիվանդ|ախտորոշ|բուժում|հղի|ամուսնալուծ|փաստաբան|դատարան|պարտք|վարկ|վարձ|ոստիկան|բողոք|ժառանգ|նկատողություն",
    // Georgian
    "ხელფას|გათავისუფლ|ავადმყოფ|დიაგნოზ|საავადმყოფო|მკურნალ|ორსულ|განქორწინ|ადვოკატ|სასამართლო|ვალი|დავალიანებ|სესხ|ქირა|პოლიცი|საჩივარ|მემკვიდრ|გაფრთხილებ|დისციპლინ",
    // Hebrew
    "משכורת|פיטור|פוטר|התפטר|מחלה|אבחנה|אבחון|בית חולים|הריון|בהריון|גירושין|גירושים|עורך דין|תביעה|בית משפט|חובות|הלוואה|שכר דירה|פינוי|משטרה|תלונה|דיכאון|ירושה|אזהרה|משמעתי",
    // Persian, Urdu, Pashto, Sorani
    "دستمزد|اخراج|استعفا|بیماری|تشخیص|بیمارستان|درمان|باردار|طلاق|وکیل|دادگاه|بدهی|اجاره|تخلیه|پلیس|شکایت|افسردگی|اخطار|انضباطی|تنخواہ|برطرف|استعفی|ہسپتال|حاملہ|عدالت|قرض|کرایہ|بے دخلی|پولیس|ڈپریشن|وراثت|معاش|ناروغي|روغتون|درملنه|امیندواره|محکمه|کرایه|مووچە|نەخۆشی|نەخۆشخانە|تەڵاق|پارێزەر|دادگا|قەرز|پۆلیس|سکاڵا",
    // Arabic
    "مستشفى|تشخيص|ديون|شرطة|شكوى|اكتئاب|ميراث|إنذار|تأديبي|طرد",
    // Amharic
    "ደመወዝ|ከሥራ|ህመም|ሕመም|ሆስፒታል|ህክምና|ሕክምና|እርግዝና|ነፍሰ ጡር|ጠበቃ|ፍርድ ቤት|ዕዳ|እዳ|ብድር|ኪራይ|ፖሊስ|ቅሬታ|ድብርት|ውርስ|ማስጠንቀቂያ",
    // Hindi, Marathi, Nepali
    "अस्पताल|उपचार|तलाक|अदालत|पुलिस|शिकायत|किराया|उधार|अवसाद|विरासत|चेतावनी|अनुशासनात्मक|निलंबित|नौकरी से निकाल|ऋण|पगार|बडतर्फ|आजार|निदान|रुग्णालय|दवाखाना|गरोदर|घटस्फोट|न्यायालय|भाडे|पोलीस|तक्रार|नैराश्य|वारसा|तलब|बिरामी|सम्बन्धविच्छेद|वकिल|कर्जा|भाडा|प्रहरी|उजुरी",
    // Bengali, Gujarati, Punjabi
    "বেতন|বরখাস্ত|অসুস্থ|হাসপাতাল|চিকিৎসা|গর্ভবতী|বিবাহবিচ্ছেদ|ডিভোর্স|আইনজীবী|উকিল|আদালত|মামলা|ঋণ|ভাড়া|উচ্ছেদ|পুলিশ|অভিযোগ|বিষণ্ণতা|উত্তরাধিকার|પગાર|બરતરફ|બીમારી|નિદાન|હોસ્પિટલ|સારવાર|ગર્ભવતી|છૂટાછેડા|વકીલ|અદાલત|દેવું|ભાડું|પોલીસ|ફરિયાદ|વારસો|ਤਨਖਾਹ|ਤਨਖ਼ਾਹ|ਬਰਖਾਸਤ|ਬਿਮਾਰੀ|ਹਸਪਤਾਲ|ਇਲਾਜ|ਗਰਭਵਤੀ|ਤਲਾਕ|ਵਕੀਲ|ਅਦਾਲਤ|ਕਰਜ਼|ਕਿਰਾਇਆ|ਪੁਲਿਸ|ਸ਼ਿਕਾਇਤ",
    // Tamil, Telugu, Kannada, Malayalam, Sinhala
    "சம்பள|பணிநீக்க|நோய்|மருத்துவமனை|சிகிச்சை|கர்ப்ப|விவாகரத்து|வழக்கறிஞர்|நீதிமன்ற|கடன்|வாடகை|காவல்|புகார்|வாரிசு|எச்சரிக்கை|జీతం|తొలగింపు|అనారోగ్య|వ్యాధి|ఆసుపత్రి|చికిత్స|గర్భవతి|విడాకులు|న్యాయవాది|కోర్టు|అప్పు|రుణం|అద్దె|పోలీసు|ఫిర్యాదు|హెచ్చరిక|ಸಂಬಳ|ಅನಾರೋಗ್ಯ|ಆಸ್ಪತ್ರೆ|ಚಿಕಿತ್ಸೆ|ಗರ್ಭಿಣಿ|ವಿಚ್ಛೇದನ|ವಕೀಲ|ನ್ಯಾಯಾಲಯ|ಬಾಡಿಗೆ|ಪೊಲೀಸ್|ದೂರು|ಎಚ್ಚರಿಕೆ|ശമ്പള|പിരിച്ചുവിട|അസുഖ|ആശുപത്രി|ചികിത്സ|ഗർഭിണി|വിവാഹമോചന|അഭിഭാഷക|വക്കീൽ|കോടതി|വായ്പ|വാടക|പോലീസ്|പരാതി|മുന്നറിയിപ്പ്|වැටුප|අසනීප|රෝහල|ප්‍රතිකාර|ගැබිනි|දික්කසාද|නීතිඥ|උසාවි|අධිකරණ|කුලිය|පොලිස්|පැමිණිල්ල|අවවාද",
    // Thai, Lao, Khmer, Burmese
    "เงินเดือน|ไล่ออก|เลิกจ้าง|ลาป่วย|ป่วย|วินิจฉัย|โรงพยาบาล|ตั้งครรภ์|หย่า|ทนาย|ฟ้อง|หนี้|เงินกู้|ค่าเช่า|ค้างชำระ|ขับไล่|ตำรวจ|ร้องเรียน|ซึมเศร้า|มรดก|ตักเตือน|วินัย|ເງິນເດືອນ|ໄລ່ອອກ|ເຈັບປ່ວຍ|ໂຮງໝໍ|ປິ່ນປົວ|ຖືພາ|ຢ່າຮ້າງ|ທະນາຍຄວາມ|ໜີ້|ເງິນກູ້|ຄ່າເຊົ່າ|ຕຳຫຼວດ|ຮ້ອງຮຽນ|ມໍລະດົກ|ប្រាក់ខែ|បណ្តេញចេញ|ជំងឺ|មន្ទីរពេទ្យ|ព្យាបាល|មានផ្ទៃពោះ|លែងលះ|មេធាវី|តុលាការ|បំណុល|ប្រាក់កម្ចី|ថ្លៃជួល|ប៉ូលិស|បណ្តឹង|មរតក|လစာ|အလုပ်ထုတ်|နာမကျန်း|ဆေးရုံ|ကိုယ်ဝန်|ကွာရှင်း|ရှေ့နေ|တရားရုံး|အကြွေး|ချေးငွေ|အိမ်လခ|တိုင်ကြား|အမွေ",
    // Japanese, Chinese, Korean
    "病院|入院|手術|離婚|親権|借金|滞納|家賃|苦情|相続|遺産|通院|督促|休業|住院|手术|离婚|抚养权|欠款|欠债|房租|拖欠|遗产|继承|病历|医院|醫院|欠薪|解僱|薪水|薪資|병원|입원|수술|이혼|양육권|채무|월세|체납|상속|유산|경찰|민원",
    // Other scripts' first letters (Latin words starting with a letter beyond ASCII)
    "úver|úvěr|žalob|ügyvéd|örökség|īres|šķiršan|įspėjim|ólétt|þunglyndi|împrumut|şikayət|şikayet|àìsàn|ọlọ́pàá|ụgwọ|ọrịa",
];
