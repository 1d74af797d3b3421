"""Learning from chat turns: corrections supersede, retired facts keep their history and
never come back in retrieval, and the assistant's words stay the assistant's."""

from __future__ import annotations

from engram.domain.models import ExtractionJob, JobTurn, MemoryQuery, RetrievalRequest


def say(engine, text, owner="k1", role="user", request=None):
    """One chat turn through the extraction job, as the proxy queues it."""
    say.n = getattr(say, "n", 0) + 1
    job = ExtractionJob(
        api_key_id=owner,
        turns=[JobTurn(role=role, text=text)],
        request_id=request or f"learn-{say.n}",
    )
    return engine.memories.process_extraction(job)


def live(engine, owner="k1"):
    page = engine.memories.list_page(MemoryQuery(api_key_id=owner, limit=100))
    return {m.content for m in page.data}


def test_scratch_that_retires_the_stale_decision_and_keeps_it_in_the_history(engine):
    say(engine, "We'll use FastAPI for the backend.")
    say(engine, "Scratch that, we'll use Django instead of FastAPI.")
    assert live(engine) == {"use Django"}
    found = engine.retrieval.preview(
        "k1", RetrievalRequest(query="Which backend framework will we use?")
    )
    contents = [r.content for r in found.results]
    assert contents == ["use Django"]
    assert not any("FastAPI" in c for c in contents)
    django = engine.memories.list_page(MemoryQuery(api_key_id="k1")).data[0]
    versions = engine.memories.versions(django.id)
    assert [v.content for v in versions.data] == ["use Django", "use FastAPI for the backend"]
    old = versions.data[1]
    assert old.superseded_by == django.id and old.reason == "superseded"
    assert old.valid_to is not None and old.valid_from <= old.valid_to
    # The retired id leads to the same history, and is never a live memory again.
    assert engine.memories.versions(old.id).data == versions.data
    assert engine.memories.get(old.id) is None


def test_a_restated_preference_on_the_same_subject_replaces_the_old_one(engine):
    say(engine, "I prefer Vue.")
    say(engine, "I prefer React now.")
    assert live(engine) == {"React"}


def test_a_reversed_liking_lands_on_the_same_key(engine):
    say(engine, "I love MongoDB.")
    say(engine, "I don't like MongoDB anymore.")
    memories = engine.memories.list_page(MemoryQuery(api_key_id="k1")).data
    assert [(m.key, m.content) for m in memories] == [("preference:mongodb", "dislikes MongoDB")]
    # A new fact, not an edit: the liking is in the history, superseded by the dislike.
    versions = engine.memories.versions(memories[0].id).data
    assert [(v.content, v.superseded_by) for v in versions] == [
        ("dislikes MongoDB", None),
        ("MongoDB", memories[0].id),
    ]


def test_a_negation_retires_what_it_negates(engine):
    say(engine, "I use Python for data work.")
    say(engine, "I no longer use Python.")
    assert live(engine) == {"no longer uses Python"}


def test_a_switch_retires_the_old_tool_and_records_the_new(engine):
    say(engine, "We use Vue and Firebase.")
    outcome = say(engine, "Actually we switched from Vue to React.")
    assert live(engine) == {"uses Firebase", "uses React"}
    assert len(outcome.retired) == 1


def test_a_switch_without_naming_the_old_tool_retires_the_same_kind(engine):
    say(engine, "We host on AWS.")
    say(engine, "We're moving to GCP.")
    assert live(engine) == {"uses GCP"}


def test_an_unnamed_instead_retires_what_the_message_mentions(engine):
    say(engine, "Let's go with Chart.js for the reports.")
    say(engine, "Hmm, Chart.js struggles with heatmaps. We'll use ECharts instead.")
    assert live(engine) == {"use ECharts"}


def test_a_new_job_replaces_the_old_employer(engine):
    say(engine, "My name is Alice and I work at Acme in Berlin.")
    say(engine, "I just joined Initech.")
    assert live(engine) == {"name is Alice", "works at Initech", "based in Berlin"}


def test_the_assistants_words_are_kept_apart(engine):
    say(engine, "I prefer Django.")
    say(engine, "I prefer Flask. We switched from Django to Flask.", role="assistant")
    memories = engine.memories.list_page(MemoryQuery(api_key_id="k1")).data
    user = [m for m in memories if m.metadata["source"] == "user"]
    assistant = [m for m in memories if m.metadata["source"] == "assistant"]
    # The assistant can neither retire nor overwrite what the user said.
    assert [m.content for m in user] == ["Django"]
    assert {m.key for m in assistant} == {
        "assistant:preference:flask",
        "assistant:decision:flask",
    }


def test_the_assistants_advice_is_no_standing_instruction(engine):
    """Standing instructions go into every prompt: only the user sets them. The assistant
    saying "always ..." advises the user."""
    say(engine, "Always back up your files before upgrading. Never use sudo pip.", role="assistant")
    say(engine, "Always answer in Spanish.")
    memories = engine.memories.list_page(MemoryQuery(api_key_id="k1")).data
    instructions = [m for m in memories if m.metadata.get("category") == "instruction"]
    assert [(m.content, m.metadata["source"]) for m in instructions] == [
        ("always answer in Spanish", "user")
    ]
    found = engine.retrieval.preview("k1", RetrievalRequest(query="Tell me about penguins"))
    assert [r.content for r in found.results if r.tier == "profile"] == ["always answer in Spanish"]


def test_the_user_can_override_the_assistants_suggestion(engine):
    say(engine, "We'll use Celery for the jobs.", role="assistant")
    say(engine, "No, Celery is too heavy for us. We'll use Dramatiq instead.")
    assert live(engine) == {"use Dramatiq"}


def test_redelivery_retires_nothing_twice(engine):
    say(engine, "I prefer Vue.", request="a")
    first = say(engine, "I prefer React now.", request="b")
    again = say(engine, "I prefer React now.", request="b")
    assert len(first.retired) == 1 and again.duplicate and again.retired == []
    assert live(engine) == {"React"}


def test_secrets_in_a_turn_are_never_stored(engine, db):
    say(
        engine,
        "We use Stripe; the key is sk_live_51HxYzAbCdEfGhIjKlMnOpQr and my password is hunter2",
    )
    assert live(engine) == {"uses Stripe"}
    dump = "".join(str(r) for r in db.query("SELECT * FROM memories"))
    assert "sk_live_" not in dump and "hunter2" not in dump


def test_retired_facts_leave_the_vector_indexes(engine):
    say(engine, "We'll use FastAPI for the backend.")
    engine.vectors.reindex(max_seconds=10)
    assert engine.vectors.rows.embedded_count() == 1
    say(engine, "Scratch that, we'll use Django instead of FastAPI.")
    engine.vectors.reindex(max_seconds=10)
    found = engine.retrieval.preview(
        "k1", RetrievalRequest(query="FastAPI backend", strategy="semantic")
    )
    assert [r.content for r in found.results] == ["use Django"]


def test_a_new_figure_for_the_same_limit_retires_the_old_one_whatever_its_wording(engine):
    say(engine, "The page must load in under 3 seconds.")
    say(engine, "We can't spend more than $5,000 on tooling.")
    say(engine, "The login API must respond within 200 ms.")
    say(engine, "New target from product: page load has to be under 1.5 seconds.")
    say(engine, "Budget update: the tooling cap is now $8,000.")
    # A limit on another thing keeps its own figure.
    say(engine, "The search API must respond within 500 ms.")
    facts = live(engine)
    assert not any("3 seconds" in c or "$5,000" in c for c in facts), facts
    assert any("1.5 seconds" in c for c in facts) and any("$8,000" in c for c in facts)
    assert any("200 ms" in c for c in facts) and any("500 ms" in c for c in facts)
    page = engine.memories.list_page(MemoryQuery(api_key_id="k1", limit=100)).data
    target = next(m for m in page if "1.5 seconds" in m.content)
    history = [v.content for v in engine.memories.versions(target.id).data]
    assert history == [target.content, "The page must load in under 3 seconds"]


def test_home_said_the_other_way_round_is_replaced_by_a_move(engine):
    say(engine, "Bristol is where I live.")
    say(engine, "We packed up and moved to Brisbane in July.")
    assert live(engine) == {"lives in Brisbane"}
    say(engine, "Sasha here, hi!")
    say(engine, "Oops, I mistyped: my name is Sacha, not Sasha.")
    assert "name is Sacha" in live(engine) and "name is Sasha" not in live(engine)


def test_a_moved_habit_retires_the_old_schedule(engine):
    say(engine, "I usually go swimming on Monday mornings.")
    say(engine, "I've moved my swims to Wednesday evenings.")
    assert live(engine) == {"swims on Wednesday evenings"}


def test_moving_a_site_between_tools_is_a_switch(engine):
    say(engine, "We're using Webflow for the marketing site.")
    say(engine, "We moved the marketing site from Webflow to Framer.")
    assert live(engine) == {"uses Framer"}
    say(engine, "We moved from London to Berlin.")  # where we live: no tool retired
    assert live(engine) == {"uses Framer", "moved from London to Berlin"}


def test_a_liking_that_lapsed_retires_the_likings_of_the_same_activity(engine):
    say(engine, "I really love running half marathons.")
    say(engine, "I love Python.")
    say(engine, "My knees have had enough, I don't enjoy running anymore.")
    assert live(engine) == {"dislikes running", "Python"}


def test_a_restated_limit_and_indentation_rule_retire_the_old_ones(engine):
    say(engine, "Max file size for uploads is 10 MB.")
    say(engine, "Correction: uploads can go up to 50 MB.")
    assert live(engine) == {"uploads limited to 50 MB"}
    say(engine, "Use tabs for indentation in any code you write for me.")
    say(engine, "Scratch that, use 2 spaces for indentation.")
    assert "use 2 spaces for indentation" in live(engine)
    assert not any("tabs" in c for c in live(engine))


def test_an_instruction_or_a_habit_restated_instead_retires_the_one_it_replaces(engine):
    say(engine, "Please quiz me with five questions at the end of every answer.")
    say(engine, "Also, make it three questions instead of five from now on.")
    assert live(engine) == {"make it three questions"}
    say(engine, "I usually review pull requests first thing in the morning.")
    say(
        engine,
        "These days I do my reviews right after lunch instead. Mornings are for deep work now.",
    )
    assert live(engine) == {
        "make it three questions",
        "do my reviews right after lunch",
        "mornings for deep work",
    }


def test_a_habit_moved_by_its_object_retires_the_one_keyed_by_its_verb(engine):
    say(engine, "We send the newsletter every Monday.")
    say(engine, "We moved the newsletter to Thursdays.")
    assert live(engine) == {"newsletter on Thursdays"}


def test_a_relaxed_length_rule_and_a_new_budget_replace_the_old(engine):
    say(engine, "Keep answers to 2-3 sentences.")
    say(engine, "Ok forget the 2-3 sentence limit, longer detailed answers are fine now.")
    say(engine, "Looking for a laptop for music production, budget is 1500 euros.")
    say(engine, "Ok my partner chipped in, the budget is now 2000 euros.")
    say(engine, "We deploy every Wednesday.")
    say(engine, "Heads up, deploys are on Thursdays now.")
    assert live(engine) == {
        "longer detailed answers are fine",
        "budget: 2000 euros",
        "deploys on Thursdays",
    }


def test_a_new_name_for_the_app_replaces_the_old_one(engine):
    say(engine, "The plan is to call the app Tidewater.")
    say(engine, "Change of plan, the app will be called Lumen.")
    assert live(engine) == {"name the app Lumen"}


def test_narrower_or_unrelated_statements_retire_nothing(engine):
    """What a reviewer found retiring real facts: each of these leaves them alone."""
    say(engine, "My name is Anna.")
    say(engine, "I'm a software engineer.")
    say(engine, "I live in Lyon.")
    say(engine, "The API must respond in under 200 ms.")
    say(engine, "The page must load in under 3 seconds.")
    say(engine, "Always write code examples in TypeScript.")
    say(engine, "Always use British spelling.")
    say(engine, "We send the newsletter every Monday.")
    say(engine, "I walk the dog every morning.")
    before = live(engine)
    for text in (
        "Click here, then hit save.",
        "I run a small team.",
        "I work as hard as I can.",
        "I'm a feminist.",
        "Paris is home to the Louvre.",
        "It's spelled Kubernetes, not Kubernates.",
        "The search API must respond in under 500 ms.",
        "The login page must load in under 1 second.",
        "Give me examples for Python.",
        "Use single quotes for strings instead of double quotes.",
        "The dog training class moved to Saturday.",
        "I left Lyon for a weekend trip to Rome.",
    ):
        say(engine, text)
    assert before <= live(engine), before - live(engine)
