import re

import pytest

from engram import extract_facts
from engram.adapters.extraction import MAX_CONTENT_CHARS, MAX_INPUT_BYTES, extract
from engram.domain.models import MemoryType


def one(text: str):
    facts = extract_facts(text)
    assert len(facts) == 1, facts
    return facts[0]


def test_preference_keeps_the_object_as_content():
    fact = one("I prefer dark mode in my editor.")
    assert (fact.category, fact.type, fact.content) == (
        "preference",
        MemoryType.FACTUAL,
        "dark mode in my editor",
    )
    assert fact.key == "preference:dark_mode_in_my_editor"


def test_decision_is_episodic():
    fact = one("I'll use PostgreSQL for this project.")
    assert (fact.category, fact.type) == ("decision", MemoryType.EPISODIC)
    assert fact.key == "decision:postgresql_for_this_project"


def test_pattern_keeps_its_polarity():
    fact = one("I never commit directly to main.")
    assert fact.category == "pattern"
    assert fact.content == "never commit directly to main"


def test_constraint():
    fact = one("We can't use any GPL-licensed libraries.")
    assert fact.category == "constraint"
    assert "GPL-licensed libraries" in fact.content
    assert fact.content.startswith("cannot")


def test_requirement_and_tech_preference():
    facts = {f.category: f for f in extract_facts("We need to support IE11. I code in Rust.")}
    assert facts["requirement"].content == "must support IE11"
    assert facts["tech_preference"].key == "tech_preference:rust"


def test_plain_statement_yields_nothing():
    assert extract_facts("The sky is blue today.") == []


def test_reference_example_keys():
    text = (
        "I prefer TypeScript. I'll use Postgres for this project. "
        "I always commit before pushing. I don't like Python."
    )
    assert [f.key for f in extract_facts(text)] == [
        "preference:typescript",
        "decision:postgres_for_this_project",
        "pattern:commit_before_pushing",
        "preference:python",
    ]


def test_negative_preference_is_not_stored_as_a_liking():
    fact = one("I don't like Python.")
    assert fact.content == "dislikes Python"


def test_reversal_collapses_to_one_key_and_latest_wins():
    facts = extract_facts("I like Python. Now I don't like Python.")
    assert [(f.key, f.content) for f in facts] == [("preference:python", "dislikes Python")]


def test_duplicates_in_one_batch_collapse_by_key():
    facts = extract_facts("I prefer tabs. I really prefer tabs. I prefer tabs!")
    assert [f.key for f in facts] == ["preference:tabs"]


@pytest.mark.parametrize(
    "text",
    [
        "Do you prefer tabs?",
        "I like it.",
        "I prefer that.",
        "Do you like Go?",
        "I need a minute to think about it.",
        "I can't believe it.",
        "Tell me a joke about penguins.",
        "If we used Vue, would it be faster?",
        "My friend likes Vue.",
        "",
        "   \n\n ",
    ],
)
def test_noise_is_ignored(text):
    assert extract_facts(text) == []


def test_keys_are_category_colon_slug():
    text = (
        "I prefer Café au lait! My favorite editor is Helix. I use Node.js 20. "
        "I'm using C++ and C#. We must ship by Friday. Saya lebih suka kopi tubruk."
    )
    facts = extract_facts(text)
    assert len(facts) >= 5
    for fact in facts:
        assert re.fullmatch(r"[a-z_]+:[a-z0-9_]+", fact.key), fact.key


def test_short_names_are_kept_when_known():
    assert one("I like Go.").key == "preference:go"


def test_dots_inside_names_do_not_cut_the_object():
    assert one("I use Node.js 20 for the backend.").content == "uses Node.js 20 for the backend"


def test_trailing_explanations_are_cut():
    assert one("I prefer Vim because it is everywhere.").content == "Vim"


def test_two_facts_in_one_sentence():
    facts = extract_facts("I love sci-fi movies and I hate horror.")
    assert {f.content for f in facts} == {"sci-fi movies", "dislikes horror"}


def test_non_latin_objects_get_a_stable_hash_key():
    first = extract_facts("I prefer 日本語のドキュメント")
    second = extract_facts("I prefer 日本語のドキュメント")
    assert first[0].key == second[0].key
    assert re.fullmatch(r"preference:h[0-9a-f]{12}", first[0].key)


def test_content_is_capped_at_500_characters_on_a_word_boundary():
    long_object = " ".join(f"word{i}" for i in range(200))
    fact = one(f"I prefer {long_object}.")
    assert len(fact.content) <= MAX_CONTENT_CHARS
    assert long_object.startswith(fact.content)
    assert fact.content.split(" ")[-1].startswith("word")
    assert not long_object[len(fact.content)].isalnum()  # cut between words


def test_input_is_capped_to_its_newest_64_kib():
    filler = ("The weather was fine that day.\n") * (MAX_INPUT_BYTES // 20)
    text = "I prefer Emacs for everything.\n" + filler + "I prefer Helix for editing.\n"
    assert len(text.encode()) > MAX_INPUT_BYTES
    assert [f.content for f in extract_facts(text)] == ["Helix for editing"]


def test_malay_statements():
    categories = {f.category for f in extract_facts("Saya lebih suka kopi. Saya selalu minum teh.")}
    assert categories == {"preference", "pattern"}


def test_metadata_records_category_time_and_source():
    from datetime import UTC, datetime

    fact = one("I prefer dark mode.")
    meta = fact.metadata(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    assert meta == {
        "category": "preference",
        "extractedAt": "2026-01-02T03:04:05Z",
        "source": "user",
        "object": "dark_mode",
        "subject": "theme",
    }


@pytest.mark.parametrize(
    "text",
    [
        "Wow, never been to something like that!",
        "I have always wanted a dog.",
        "Never been happier!",
        "Always loved that song.",
        "Never thought I'd say this, but I miss the office.",
        "If you ever do it, let me know, I would love to help.",
        "If you need anything, just ask.",
        "When you get here, call me.",
        "If you ever visit Lisbon, try the custard tarts.",
        # Encouragement between people is no rule for the assistant's answers.
        "Never give up!",
        "Never give up on your dreams.",
        "Never stop dreaming.",
        "Always believe in yourself.",
        "Always keep smiling!",
        "Always follow your heart.",
        "Always happy to share them with you!",
        "Always staying filled with self-belief.",
        "Whenever you need help, just let me know.",
        "Whenever you feel down, call your sister.",
    ],
)
def test_conversation_is_no_standing_instruction(text):
    """Instructions go into every prompt: "always"/"never" telling of the speaker, and
    "if you ..." about anything but the assistant's answers, are conversation."""
    assert [f for f in extract_facts(text) if f.category == "instruction"] == []


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Never use the word delve.", "never use the word delve"),
        ("Always be concise.", "always be concise"),
        ("Never proceed without asking me.", "never proceed without asking me"),
        ("If you are unsure, say so.", "if you are unsure, say so"),
        ("Never commit directly to main.", "never commit directly to main"),
        ("Always keep it brief.", "always keep it brief"),
        ("Always ask before deleting files.", "always ask before deleting files"),
        ("Always tell me when you are unsure.", "always tell me when you are unsure"),
        ("Always double-check your math.", "always double-check your math"),
        ("Never apologize.", "never apologize"),
        ("When you show SQL, use uppercase keywords.", "when you show SQL, use uppercase keywords"),
        (
            "Whenever you give me shell commands, make them POSIX-compatible.",
            "whenever you give me shell commands, make them POSIX-compatible",
        ),
    ],
)
def test_standing_instructions_are_still_read(text, content):
    facts = [f for f in extract_facts(text) if f.category == "instruction"]
    assert [f.content for f in facts] == [content]


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("Bristol is where I live.", ["lives in Bristol"]),
        ("Home for me is Hobart.", ["lives in Hobart"]),
        ("I call Leeds home.", ["lives in Leeds"]),
        ("Sasha here, hi!", ["name is Sasha"]),
        ("Hi all, Tom here.", ["name is Tom"]),
        ("That is where I live.", []),
        ("Same here!", []),
        ("We moved the backend from Heroku to Fly.io.", ["uses Fly.io"]),
        # A move between towns is where the user lives now, never a switch of tools.
        ("We moved from London to Berlin.", ["moved from London to Berlin"]),
        ("GoodJob runs our background jobs.", ["uses GoodJob"]),
        ("Sarah handles our deploys.", []),
        (
            "Pandas is out, we've rewritten the whole pipeline in DuckDB.",
            ["no longer uses Pandas", "uses DuckDB"],
        ),
        ("Saya berasal dari Medan.", ["is from Medan"]),
        ("Nama saya Ayu, saya desainer grafis.", ["name is Ayu", "is desainer grafis"]),
        (
            "Saya bekerja sebagai jururawat di Johor Bahru.",
            ["is jururawat", "works in Johor Bahru"],
        ),
        ("Bulan lalu saya pindah ke Semarang.", ["lives in Semarang"]),
        ("Saya pindah ke Kubernetes.", []),
        ("saya Indonesia", []),
        ("Kami dah tak guna Bamboo lagi.", ["no longer uses Bamboo"]),
        ("Antalya'da oturuyorum.", ["lives in Antalya"]),
        ("Aselsan'da donanım mühendisiyim.", ["works at Aselsan", "is donanım mühendis"]),
        ("Lütfen cevaplarında madde işaretleri kullan.", ["cevaplarında madde işaretleri kullan"]),
    ],
)
def test_statements_worded_the_other_way_round_or_in_other_languages(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


def test_a_habit_is_about_the_activity_not_the_light_verb():
    (fact,) = extract_facts("I usually go swimming on Monday mornings.")
    assert fact.object == "swim"


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("Uploads are limited to 25 MB per file.", ["Uploads limited to 25 MB per file"]),
        ("Actually, make the budget £250, money's tight this month.", ["budget: £250"]),
        (
            "We got approval to raise the Lambda memory limit to 1024 MB.",
            ["Lambda memory limit: 1024 MB"],
        ),
        (
            "Actually I can stretch to $1,800 for the laptop.",
            ["budget for the laptop: up to $1,800"],
        ),
        ("The VPS only has 1 GB of RAM.", ["The VPS only has 1 GB of RAM"]),
        ("We're stuck on Java 8 because of a legacy dependency.", ["stuck on Java 8"]),
        ("No internet access on the build machines.", ["no internet access on the build machines"]),
        ("I don't have admin rights on my work laptop.", ["no admin rights on my work laptop"]),
        ("It can go up to 11.", []),
        ("No problem at all.", []),
        ("Standup is at 9:30 every weekday.", ["Standup at 9:30 every weekday"]),
        ("Release day is Wednesday.", ["Release day on Wednesday"]),
        ("The class is on fire.", []),
        ("I'm back to normal.", []),
        ("I am back on Monday.", []),
        ("We're back to Postgres.", ["go back to Postgres"]),
        ("Our monorepo builds with Lerna.", ["uses Lerna"]),
        ("Both services are written in TypeScript.", ["services: TypeScript"]),
        ("It was written by Tolkien.", []),
        ("I've gotten really into bouldering.", ["bouldering"]),
        ("I got into trouble.", []),
        ("I'm a huge Studio Ghibli fan.", ["Studio Ghibli"]),
        ("Sci-fi novels are my guilty pleasure.", ["Sci-fi novels"]),
        ("I play guitar, piano and drums.", ["plays guitar", "plays piano", "plays drums"]),
        ("I play it by ear.", []),
        ("I speak English and a bit of Japanese.", ["speaks English", "speaks Japanese"]),
    ],
)
def test_limits_events_and_likes_in_more_phrasings(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


def test_a_moved_event_or_a_habit_restated_with_now_retires_the_old_schedule():
    ((fact, retractions),) = extract("Standup moved to 10:15 starting this week.").steps
    assert fact.content.startswith("Standup at 10:15")
    assert [r.about for r in retractions] == ["standup"]
    ((fact, retractions),) = extract("Because of the pool, I swim on Tuesdays at 8 pm now.").steps
    assert fact.content == "swim on Tuesdays at 8 pm" and [r.about for r in retractions] == ["swim"]


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("And I should say I'm vegetarian myself.", ["is vegetarian"]),
        ("I should use Go.", []),
        ("I'm a bioinformatician.", ["is a bioinformatician"]),
        ("I'm an optimist.", []),
        (
            "Hi, I'm Marisol, I lead the analytics team.",
            ["name is Marisol", "leads the analytics team"],
        ),
        (
            "Hi, I'm Lachlan, 38, living in Pittsburgh.",
            ["name is Lachlan", "lives in Pittsburgh", "is 38 years old"],
        ),
        ("Personally I'm happiest writing OCaml.", ["OCaml"]),
        ("Then let's model the data with SQLMesh.", ["use SQLMesh"]),
        (
            "Our invoicing tool runs on Rails, with Sidekiq for background jobs.",
            ["invoicing tool: Rails", "uses Sidekiq"],
        ),
        ("Our backups go to Wasabi.", ["uses Wasabi"]),
        ("The launch is on September 5.", ["deadline: September 5"]),
        ("Bad news: the audit has been brought forward to 28 April.", ["deadline: 28 April"]),
        ("The party has been moved to Friday.", []),
        ("Please use numbered steps whenever you explain a process.", ["use numbered steps"]),
        (
            "I'm on Linux now, so give me bash commands from now on instead of PowerShell.",
            ["uses Linux", "give me bash commands"],
        ),
    ],
)
def test_preambles_apposition_and_joined_statements(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


def test_instructions_about_the_same_kind_of_tool_share_a_key():
    (old,) = extract_facts("Always give me commands for PowerShell.")
    (_, new) = extract_facts("I'm on Linux now, so give me bash commands from now on.")
    assert old.key == new.key == "instruction:shell"


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("My budget for the new laptop is $1,500.", ["budget for the new laptop: $1,500"]),
        ("Max file size for uploads is 10 MB.", ["max file size for uploads: 10 MB"]),
        ("Uptime target is 99.95%.", ["Uptime target: 99.95%"]),
        ("Name's Tomasz, by the way.", ["name is Tomasz"]),
        ("Spotify is where I've worked for the past three years.", ["works at Spotify"]),
        ("My timezone is Pacific, keep that in mind.", ["timezone: Pacific"]),
        (
            "I like using Poetry to manage Python dependencies.",
            ["using Poetry to manage Python dependencies"],
        ),
        ("I prefer tea to coffee.", ["prefers tea over coffee"]),
        ("Jira is the worst, I avoid it whenever possible.", ["dislikes Jira"]),
        ("The weather is the worst.", []),
        ("Musicals really aren't for me.", ["dislikes Musicals"]),
        ("Coffee is my thing, black, no sugar.", ["Coffee"]),
        (
            "I meditate for ten minutes right after I wake up.",
            ["meditate for ten minutes right after I wake up"],
        ),
        (
            "Twice a month I do a full backup of my photo library.",
            ["twice a month do a full backup of my photo library"],
        ),
        ("pnpm is what I use for every JS project.", ["uses pnpm"]),
        ("We're a Postgres shop through and through.", ["uses Postgres"]),
        (
            "We monitor everything with Prometheus, Grafana and Sentry.",
            ["uses Prometheus", "uses Grafana", "uses Sentry"],
        ),
        ("Decision made: the docs are moving to Docusaurus.", ["move to Docusaurus"]),
        (
            "Skip the pleasantries and get straight to the code.",
            ["skip the pleasantries and get straight to the code"],
        ),
        ("Give shell commands for fish, not bash.", ["give shell commands for fish, not bash"]),
        ("Give me code for a login form.", []),
        (
            "Use tabs for indentation in any code you write for me.",
            ["use tabs for indentation in any code you write for me"],
        ),
        ("Saya sudah pindah dari Jakarta ke Surabaya.", ["lives in Surabaya"]),
        ("Kami beralih dari Trello ke Notion.", ["uses Notion"]),
    ],
)
def test_budgets_targets_inverted_identity_and_dislikes(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("Lately I can't get enough of Korean fried chicken.", ["Korean fried chicken"]),
        ("I can't get enough sleep.", []),
        ("Treadmills bore me to tears, honestly.", ["dislikes Treadmills"]),
        ("Cruises don't appeal to me one bit.", ["dislikes Cruises"]),
        ("It bores me.", []),
        ("I'm really not a cat person.", ["dislikes cat"]),
        ("I don't drink alcohol.", ["dislikes alcohol"]),
        ("I'd prefer a ThinkPad.", []),  # "I'd prefer the first one": a choice, once
        ("I would like a coffee.", []),
        ("For data wrangling I reach for Polars now, it's just faster.", ["uses Polars"]),
        ("Obsidian is where I keep everything: notes, tasks, reading lists.", ["uses Obsidian"]),
        ("The docs are going to be hosted on GitHub Pages.", ["use GitHub Pages"]),
        ("I've been at Shopify for four years now.", ["works at Shopify"]),
        ("I work as a freelance illustrator.", ["is a freelance illustrator"]),
        ("We renamed the company to Canopy Analytics.", ["works at Canopy Analytics"]),
        ("Oops, I'm 31 actually, not 29.", ["is 31 years old"]),
        (
            "I'm allergic to penicillin, latex and bee stings.",
            ["is allergic to penicillin", "is allergic to latex", "is allergic to bee stings"],
        ),
        ("Saya alergi udang.", ["is allergic to udang"]),
        (
            "Write SQL keywords in uppercase when you give me queries.",
            ["write SQL keywords in uppercase"],
        ),
        ("I cried when you left.", []),
        ("Passwords need at least 12 characters.", ["Passwords need at least 12 characters"]),
        (
            "Max 2 production deploys per day, that's the rule here.",
            ["max 2 production deploys per day"],
        ),
        (
            "The kids' screen time is limited to one hour a day.",
            ["kids' screen time limited to one hour a day"],
        ),
        (
            "Deploys are frozen for the whole of December.",
            ["Deploys are frozen for the whole of December"],
        ),
        ("The organisers raised the team size limit to 6.", ["team size limit: 6"]),
        (
            "My boss extended it, the quarterly report is now due on the 20th.",
            ["deadline: the 20th"],
        ),
        ("We have standup at 9:30 every weekday.", ["standup at 9:30 every weekday"]),
        ("The meeting at noon was boring.", []),
        ("Weekends I'm usually at the climbing gym.", ["weekends usually at the climbing gym"]),
        ("Not Sublime anymore, Zed is my favourite editor now.", ["no longer uses Sublime"]),
        ('The article opened with: "I hate meetings that could have been emails."', []),
        ('Call me "Jo".', ["name is Jo"]),
    ],
)
def test_likings_tools_identity_limits_and_schedules_in_fresh_wordings(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        ("I live in Lyon, by the way — any ideas for a weekend trip?", ["lives in Lyon"]),
        ("The conference paper is due 12 April.", ["the conference paper due 12 April"]),
        ("Saya tinggal di Medan dan saya suka kopi.", ["lives in Medan", "kopi"]),
        ("We just dropped Jira entirely.", ["no longer uses Jira"]),
        ("Ok my partner chipped in, the budget is now 2000 euros.", ["budget: 2000 euros"]),
        ("Heads up, deploys are on Thursdays now.", ["deploys on Thursdays"]),
        ("We are on Mondays.", []),
        (
            "Ok forget the 2-3 sentence limit, longer detailed answers are fine now.",
            ["longer detailed answers are fine"],
        ),
        ("oh wait I'm 42 now actually, birthday was last week", ["is 42 years old"]),
        ("Actually, switch back to English, it's easier for my team.", ["answer in English"]),
        ("Answer me in Dutch from now on, please.", ["answer me in Dutch from now on"]),
    ],
)
def test_statements_beside_questions_markers_and_restated_answers(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        (
            "Our stack: Django, Celery, and Postgres.",
            ["uses Django", "uses Celery", "uses Postgres"],
        ),
        (
            "Favourite bands: Radiohead, Portishead, Massive Attack.",
            [
                "favorite bands: Radiohead",
                "favorite bands: Portishead",
                "favorite bands: Massive Attack",
            ],
        ),
        (
            "Things I can't stand: Teams, Outlook, and SharePoint.",
            ["dislikes Teams", "dislikes Outlook", "dislikes SharePoint"],
        ),
        ("I love Paris, France.", ["Paris"]),
        ("been totally obsessed with Stardew Valley lately", ["Stardew Valley"]),
        ("On long drives, history podcasts are my jam.", ["history podcasts"]),
        ("My daily driver is a ThinkPad X1 Carbon.", ["uses ThinkPad X1 Carbon"]),
        (
            "Since last spring our data pipelines have been orchestrated with Airflow.",
            ["uses Airflow"],
        ),
        ("Phone-wise I'm on a Pixel 8.", ["uses Pixel 8"]),
        ("fine, we'll store the user uploads in S3 then", ["store the user uploads in S3"]),
        ("Change of plan, the app will be called Lumen.", ["name the app Lumen"]),
        (
            "Originally from Nairobi, but I live in Toronto now.",
            ["is from Nairobi", "lives in Toronto"],
        ),
        (
            "I'm doing a PhD in computational linguistics.",
            ["doing a PhD in computational linguistics"],
        ),
        (
            "Explain things to me like I'm a beginner and skip the jargon.",
            ["explain things to me like I am a beginner and skip the jargon"],
        ),
        (
            "Give me the code first and the explanation after.",
            ["give me the code first and the explanation after"],
        ),
        ("Write me a poem first.", []),
        (
            "I can only spend about 5 hours a week on this side project.",
            ["I can only spend about 5 hours a week on this side project"],
        ),
        ("We can't deploy on Fridays, company rule.", ["cannot deploy on Fridays"]),
        ("We release every second Tuesday.", ["release every second Tuesday"]),
        ("usually i code late at night, like 11pm to 2am", ["code late at night"]),
        ("oops typo, I'm 27 not 29", ["is 27 years old"]),
        ("Sorry, it's spelled John, with an h.", ["name is John"]),
        ("I quit coffee, honestly can't stand the taste anymore.", ["gave up coffee"]),
        ("I quit my job.", ["quit my job"]),
        ("I quit Twitter.", ["no longer uses Twitter"]),
        (
            "Not Notion anymore — I switched to Obsidian.",
            ["no longer uses Notion", "uses Obsidian"],
        ),
        ("I'm in Oslo btw.", ["lives in Oslo"]),
        ("Deadline laporan tanggal 20 Juni.", ["deadline: 20 Juni"]),
        ("Proje 15 Mayıs'a kadar bitmeli.", ["deadline: 15 Mayıs"]),
        ("Bütçemiz 5000 lira.", ["budget: 5000 lira"]),
    ],
)
def test_labelled_lists_dropped_subjects_names_and_deadlines(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        (
            "Never mind, we ripped Prisma out yesterday and went with Drizzle.",
            ["no longer uses Prisma", "go with Drizzle"],
        ),
        ("Sure, English it is.", []),
        ("Also, I prefer answers with short code snippets.", ["answers with short code snippets"]),
        ("I'm vegetarian and allergic to sesame.", ["is allergic to sesame", "is vegetarian"]),
        ("We track bugs in Jira and chat in Slack.", ["uses Jira", "uses Slack"]),
        ("I'm a postdoc in marine biology.", ["is a postdoc in marine biology"]),
        ("I am a nurse in London.", ["is a nurse", "based in London"]),
        ("I mostly play on a Steam Deck.", ["uses Steam Deck"]),
        ("Already love Hades!", ["Hades"]),
    ],
)
def test_particles_second_tasks_fields_and_dropped_subjects(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


@pytest.mark.parametrize(
    "text",
    [
        "Click here, then hit save.",
        "I have a meeting at 3pm.",
        "My appointment is at 10am.",
        "Class is at 9 tomorrow.",
        "I called my mom in the morning.",
        "I can call you in the morning.",
        "I'd prefer the first one.",
        "I'm stuck on step 3.",
        "I only have 2 eggs, what can I make?",
        "My phone only has 10% battery.",
        "I head to the gym after the team meeting.",
        "I work as hard as I can.",
        "My boss annoys me.",
        "John is the worst.",
        "Parking is a nightmare.",
        "I'm a visual person.",
        "I don't eat before a workout.",
        "Time management is my weakness.",
        "I've been at Heathrow for three hours.",
        "Paris is where I worked last summer.",
        "They renamed the company to Meta in 2021.",
        "Paris is home to the Louvre.",
        "I'm a feminist.",
        "I'm a Canadian.",
        "I'm a Taylor Swift fan.",
        "Paris is where I plan to retire.",
        "HR manages our tools.",
        "The app is called Notion and it keeps crashing.",
        "They call the dog Rex.",
        "Not Monday anymore, the meeting moved.",
        "We're back to London next week.",
        "I gave up trying to fix it.",
        "Give me examples for Python.",
        "Use tabs for indentation in this file.",
        "It's spelled Kubernetes, not Kubernates.",
        "I'm 50 not 60 percent sure.",
        "I'm doing a PhD application for my friend.",
        "I think I'm allergic to cats - should I see a doctor?",
        "Payday is on Fridays.",
        "A train can go up to 120 km/h.",
        "At least 2 people died in the accident.",
        "The roads are frozen in winter.",
        "Change the font size to 14px.",
        "In this exercise, the budget is $200.",
        "Her baby is due 12 April.",
        "Teman saya alergi kacang.",
        "Otelde kalıyorum.",
    ],
)
def test_everyday_sentences_that_look_like_facts_store_nothing(text):
    assert extract_facts(text) == []


@pytest.mark.parametrize(
    ("text", "contents"),
    [
        (
            "i really love hiking in the Dolomites, been 4 times now and would go again tomorrow",
            ["hiking in the Dolomites"],
        ),
        (
            "My favourite author has got to be Ursula K. Le Guin.",
            ["favorite author: Ursula K. Le Guin"],
        ),
        (
            "Thai food is my absolute favourite cuisine, green curry above all.",
            ["favorite cuisine: Thai food"],
        ),
        ("What I really enjoy after a long day is a history podcast.", ["history podcast"]),
        ("What I like about Python is the syntax?", []),
        ("Gardening's become my favorite hobby since we got the allotment.", ["Gardening"]),
        ("I can't stand Java. I do love Kotlin though.", ["dislikes Java", "Kotlin"]),
        (
            "My everyday tools are VS Code, iTerm2 and Raycast.",
            ["everyday tools: VS Code", "everyday tools: iTerm2", "everyday tools: Raycast"],
        ),
        ("I'm on a MacBook Pro with an M2 chip.", ["uses MacBook Pro with an M2 chip"]),
        ("Our pipelines run on Spark.", ["pipelines: Spark"]),
        (
            "The free tier allows no more than 3 API calls per second.",
            ["free tier allows at most 3 API calls per second"],
        ),
        (
            "Every night before bed I read for about half an hour.",
            ["every night before bed read for about half an hour"],
        ),
        ("Swimming is on Wednesdays now, not Tuesdays.", ["Swimming on Wednesdays"]),
        ("Sprint review is every second Friday.", ["Sprint review every second Friday"]),
        ("No wait, the launch is 15 October, I misread the calendar.", ["deadline: 15 October"]),
        ("Let's call the newsletter The Weekly Byte.", ["name the newsletter The Weekly Byte"]),
    ],
)
def test_asides_clefts_favourites_and_dated_events(text, contents):
    assert [f.content for f in extract_facts(text)] == contents


def test_quote_style_instructions_share_a_key():
    (single,) = extract_facts("Always use single quotes in code.")
    (double,) = extract_facts("From now on, use double quotes in code.")
    assert single.key == double.key == "instruction:quotes"
