"""The vocabulary and rules of standing instructions: what the assistant's work is, the
words of answer style, the rules that find an instruction, and the aspects it is about.

Kept apart from ``instructions.py``, which reads a clause with them: these are long
pattern tables that grow by the word as new phrasings turn up, while the reading (what is
trimmed, what makes it standing, one fact per aspect) rarely changes. Rules are tried in
the order of ``RULES``.
"""

from __future__ import annotations

from engram.adapters.extraction import rx
from engram.adapters.extraction.common import I

__all__ = [
    "ASPECTS",
    "LANGUAGE_NAMES",
    "NOT_IMPERATIVE",
    "ONE_OFF",
    "RULES",
    "STANDING",
    "WORK_IMPERATIVE",
]

# "When you <do your work>, ..." is how the user wants the work done ("whenever you write
# SQL, target SQLite"); "if you ever visit, let me know" or "if you need anything, ask"
# is conversation. The condition has to be about the assistant's answers.
_YOU_WORK = (
    r"(?!\S*\s+ever\b)(?:write|writ|answer|respond|reply|explain|suggest|recommend|give|show|"
    r"list|summari[sz]e|translate|cite|quote|mention|refer|use|generate|produce|draft|format|"
    r"present|compare|calculate|convert|describe|provide|create|review|refactor|comment|"
    r"document|talk|speak|code|search|look\s+up|research|output|print|return|outline|teach|"
    r"correct|rewrite|optimi[sz]e|debug|test|analy[sz]e|estimate|name|structure|edit|change|"
    r"fix|send|pick|choose|guess|assume|make\s+(?:a|an|any)\s|don't\s+know|do\s+not\s+know|"
    r"can't|cannot|are\s+(?:not\s+sure|unsure|uncertain|in\s+doubt|guessing)|aren't\s+sure|"
    r"need\s+to\s+(?:guess|assume|choose|pick|make))"
)
STANDING = (
    r"(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|from\s+here\s+on(?:\s+out)?|"
    r"by\s+default|for\s+(?:all\s+)?(?:future|your)\s+(?:answers|responses|replies)|"
    r"in\s+(?:all\s+)?(?:your\s+)?(?:answers|responses|replies)|whenever\s+you\s+(?="
    + _YOU_WORK
    + r")\w+|every\s+time|each\s+time|always|never)"
)
# At the end of a sentence a bare "always" is a figure of speech ("thanks as always").
_STANDING_TAIL = STANDING.replace(r"|always|never)", ")")
LANGUAGE_NAMES = (
    r"(?:english|spanish|french|german|italian|portuguese|dutch|turkish|indonesian|malay|"
    r"chinese|mandarin|cantonese|japanese|korean|arabic|hindi|russian|polish|swedish|"
    r"norwegian|danish|finnish|greek|hebrew|vietnamese|thai|ukrainian|czech|romanian|"
    r"hungarian|tagalog|swahili|persian|farsi|urdu|bengali)"
)
_STYLE_NOUNS = (
    r"emojis?|emoticons|jargon|exclamation\s+(?:marks|points)|bullet(?:\s+points|ed\s+lists)?|"
    r"markdown|tables|headings|headers|filler|fluff|disclaimers|caveats|warnings|"
    r"apolog(?:ies|ising|izing)|preambles?|long\s+introductions|introductions|summaries|"
    r"code\s+comments|comments|citations|sources|references|numbered\s+lists|lists|bold|"
    r"italics|slang|abbreviations|acronyms|technical\s+terms|analogies|metaphors|humou?r|jokes|"
    r"repeating\s+yourself|repeating\s+the\s+question|em\s+dashes|semicolons|passive\s+voice|"
    r"british\s+(?:english|spelling)|american\s+(?:english|spelling)|metric(?:\s+units)?|"
    r"imperial(?:\s+units)?|celsius|fahrenheit|24-hour\s+(?:time|clock)|iso\s+dates|"
    r"type\s+hints|docstrings|oxford\s+commas?|lowercase|uppercase|capital\s+letters|"
    r"sugarcoating|small\s+talk|follow-up\s+questions|moralizing|lectures?|pleasantries|niceties|"
    r"chit-?chat|formalities|intros?|outros?|recaps?"
)
_STYLE_ADJ = (
    r"concise|brief|succinct|terse|short|shorter|direct|formal|informal|casual|friendly|polite|"
    r"detailed|thorough|specific|blunt|honest|patient|technical|precise|clear|simple|"
    r"professional|encouraging|critical|objective|neutral|gentle|strict|funny|serious"
)
_ANSWERS = (
    r"(?:answers?|responses?|replies|explanations?|outputs?|messages?|summaries|code|examples|"
    r"tone|style|language|writing|wording|formatting|comments|emails?|drafts?)"
)
# After a bare "always"/"never" an instruction goes on with the assistant's work in the
# imperative ("never use emojis", "always cite your sources", "never commit to main");
# "never been there", "always wanted a dog" tell of the speaker, and "never give up",
# "always happy to help", "always believe in yourself" are encouragement between people:
# as standing instructions they would go into every prompt.
WORK_IMPERATIVE = rx.compile(
    r"^(?:(?:be|stay|sound|remain)\s+(?:more\s+|very\s+|extra\s+|less\s+|a\s+bit\s+more\s+)?"
    r"(?:" + _STYLE_ADJ + r"|careful|explicit|transparent|upfront|accurate|consistent|"
    r"respectful|constructive|realistic)\b"
    r"|keep\s+(?:it|them|things|(?:your\s+|the\s+|all\s+|my\s+)?" + _ANSWERS + r")\b"
    r"|tell\s+me|let\s+me|(?!give\s+(?:up|in)\b)(?:" + _YOU_WORK + r"|ask|add|include|put|"
    r"start|begin|end|check|double-check|verify|confirm|proceed|commit|push|merge|deploy|run|"
    r"execute|delete|remove|drop|rename|move|copy|install|upgrade|touch|modify|overwrite|call|"
    r"address|greet|sign|spell|capitali[sz]e|round|wrap|mark|label|highlight|link|attach|save|"
    r"remind|avoid|skip|omit|leave\s+out|split|state|repeat|tag|prefix|indent|number|sort|"
    r"back\s+up|offer|apologi[sz]e|notify|prefer|favou?r)\b)",
    I,
)
NOT_IMPERATIVE = rx.compile(
    r"^(?:been|had|has|have|was|were|is|are|am|seen|done|gone|known|heard|felt|thought|got|"
    r"gotten|taken|given|found|told|kept|left|met|won|lost|bought|brought|caught|taught|"
    r"understood|said|saw|went|knew|did|really|quite|just|so|too|a|an|the|my|your|his|her|"
    r"our|their|i|we|you|he|she|it|they|this|that|there|here|(?!\w*eed\b)\w+ed)\b",
    I,
)
RULES = [
    rx.compile(r"^(?:please\s+)?(?:" + STANDING + r")\s*,?\s+(?:please\s+)?(?P<x>.+)$", I),
    # "Use tabs for indentation", "use single quotes for strings": how code should look.
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:use|prefer|stick\s+to)\s+.{1,40}?\s+for\s+(?:all\s+|the\s+)?"
        r"(?:indentation|indenting|indents|strings|quotes|naming|variable\s+names|file\s+names|"
        r"line\s+endings|dates|timestamps|times|currency|units|commit\s+messages|comments|"
        r"docstrings|tests)\b.*)$",
        I,
    ),
    # "Give shell commands for fish, not bash": answers for a named tool.
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:give|show|write|use)\s+(?:me\s+)?(?:[\w-]+\s+)?(?:commands?|"
        r"scripts?)\s+(?:for|in)\s+(?P<tool>[\w.+#-]+)\b.*)$",
        I,
    ),
    # "Give me the code first and the explanation after".
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:give|show|put|start\s+with|lead\s+with)\s+(?:me\s+)?(?:the\s+)?"
        r"(?:code|answer|summary|tl;?dr|conclusion|result|bottom\s+line|example)s?\s+(?:first|up\s+front|"
        r"at\s+the\s+top)\b.*)$",
        I,
    ),
    # "Use 2-space indentation in any JavaScript examples".
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:use|prefer|stick\s+to)\s+(?:[\w-]+\s+){0,2}(?:indentation|indents|"
        r"quotes|semicolons|tabs|spaces)\b.*)$",
        I,
    ),
    # "Longer detailed answers are fine now": how long or how formal answers may be.
    rx.compile(
        r"(?:^|,\s+)(?P<x>(?:(?:longer|shorter|detailed|short|long|brief|casual|formal|informal|technical|"
        r"simple|simpler|in-depth|more\s+detailed|less\s+formal|more\s+formal)\s+){1,3}(?:answers|"
        r"responses|replies|explanations)\s+(?:are|is)\s+(?:totally\s+|perfectly\s+)?(?:fine|ok(?:ay)?|"
        r"good|better|preferred|welcome))\b",
        I,
    ),
    # "Use numbered steps whenever you explain a process", "write SQL keywords in
    # uppercase when you give me queries", "ask me whenever my request is ambiguous".
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?!(?:I|we)\b).+?)\s+(?:(?:whenever|when|every\s+time|each\s+time)\s+you\s+(?="
        + _YOU_WORK
        + r")|(?:whenever|when|if)\s+(?:my|the)\s+(?:request|question|prompt|message|ask)s?\s+"
        r"(?:is|are|seems?)\s+).+$",
        I,
    ),
    # "Quiz me with five questions at the end of every answer".
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?!(?:I|we)\b).+?\s+(?:at\s+the\s+(?:end|start|beginning|top|bottom)\s+"
        r"of|in|after|before|with)\s+(?:every|each|all|any)\s+(?:answers?|replies|reply|responses?|"
        r"messages?|explanations?)\b.*)$",
        I,
    ),
    rx.compile(r"^(?:please\s+)?(?P<x>.+?)\s*,?\s+(?:" + _STANDING_TAIL + r")$", I),
    rx.compile(
        r"^(?:when|whenever|if)\s+you\s+(?P<when>"
        + _YOU_WORK
        + r"[^,]*),\s*(?:please\s+)?(?P<x>.+)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:keep|make)\s+(?:your\s+|the\s+|all\s+|my\s+)?"
        + _ANSWERS
        + r"\s+.+)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:keep|make)\s+(?:it|them|things)\s+(?:"
        + _STYLE_ADJ
        + r"|under|below|within|less|fewer|simple|short|brief)\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:answer|respond|reply|write|talk|speak|explain(?:\s+things)?|"
        r"communicate)\s+(?:(?:to\s+)?me\s+)?(?:only\s+)?(?:in|using|with)\s+.+)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:be|stay|sound)\s+(?:more\s+|very\s+|extra\s+|less\s+|a\s+bit\s+"
        r"more\s+)?(?:" + _STYLE_ADJ + r")\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:do\s+not|never|stop|avoid|no\s+more|skip|quit)\s+"
        r"(?:using\s+|use\s+|adding\s+|add\s+|including\s+|include\s+|giving\s+(?:me\s+)?|"
        r"give\s+(?:me\s+)?|writing\s+|write\s+|putting\s+|put\s+|with\s+the\s+|the\s+|"
        r"making\s+|sending\s+(?:me\s+)?)?(?:any\s+|so\s+many\s+)?(?:" + _STYLE_NOUNS + r")\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:use|include|add|give|show|write\s+with|format\s+\w+\s+(?:as|in|"
        r"with))\s+(?:me\s+)?(?:more\s+|fewer\s+|less\s+)?(?:" + _STYLE_NOUNS + r")\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:use|write|give(?:\s+me)?|show(?:\s+me)?)\s+(?:code\s+)?"
        r"(?:examples?|snippets?|code\s+samples?|code)\s+in\s+.+)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:use|write)\s+\S+(?:\s+\S+)?\s+(?:for|in)\s+(?:the\s+|all\s+|"
        r"your\s+|code\s+)?(?:examples?|snippets?|code\s+samples?|code))$",
        I,
    ),
    rx.compile(
        r"\bI\s+(?:want|need|would\s+like|expect|prefer)\s+(?:you\s+to\s+|your\s+"
        + _ANSWERS
        + r"\s+to\s+)(?P<x>.+)$",
        I,
    ),
    rx.compile(r"\b(?:you\s+(?:should|must|need\s+to))\s+(?P<x>(?:always|never)\s+.+)$", I),
    rx.compile(
        r"\bI\s+(?:would\s+(?:like|prefer|rather\s+have)|want|prefer|need|like|expect)\s+"
        r"(?P<x>(?:more\s+|less\s+|much\s+|really\s+)?(?:[\w-]+\s+){0,3}?(?:answers|responses|"
        r"replies|explanations|code\s+examples)(?:\s+(?:with|in|that|without)\s+[^,;:!?\n]+)?)",
        I,
    ),
    rx.compile(r"^no\s+(?P<x>(?:" + _STYLE_NOUNS + r")(?:\s+please)?)$", I),
    rx.compile(r"^(?:there\s+is\s+)?no\s+need\s+to\s+(?P<x>.+)$", I),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:talk|speak|write|respond|reply|answer|explain\s+things)\s+(?:to\s+me\s+)?"
        r"(?:like|as\s+if|as\s+though|as)\s+.+)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>stop\s+(?:suggesting|telling\s+me|recommending|reminding\s+me|asking|"
        r"saying|mentioning|offering|adding|using|apologi[sz]ing|ending|starting|repeating)\b.+)$",
        I,
    ),
    rx.compile(r"^(?:please\s+)?(?P<x>default\s+to\s+.+)$", I),
    rx.compile(
        r"^(?:let\s+us\s+|let's\s+|please\s+|can\s+we\s+)?(?:go|switch|change|move)\s+(?:back\s+)?"
        r"to\s+(?P<x>" + LANGUAGE_NAMES + r")\b",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:show|display|format|write|give|present|express|put|list|number|"
        r"sort|use|render|print|spell|date)\s+(?:[\w'-]+\s+){0,4}?(?:in|as|with|using)\s+"
        r"(?:[\w'-]+\s+){0,3}?(?:format|style|notation|units?|order|case|indentation|syntax|form|"
        r"layout|template|structure|timezone|time\s*zone|currency)\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?!(?:I|we)\b)[a-z]+\b.*\byour\s+(?:replies|answers|responses|messages|"
        r"explanations|emails|summaries|output|outputs|suggestions|examples)\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?:please\s+)?(?P<x>(?:format|indent|write|style|comment|document|name|type|wrap|lint|"
        r"annotate|test|render|typeset)\s+(?:every|all|each|any|your|the)\s+(?:code|snippets?|functions?|"
        r"variables?|maths?|equations?|formulas?|formulae|numbers|dates|times|prices|"
        r"examples?|files?|lines?|commits?|commit\s+messages?|queries|sql|classes|components?)\b.*)$",
        I,
    ),
    rx.compile(
        r"^(?P<x>.*\b(?:up\s+to|at\s+most|no\s+more\s+than|max(?:imum)?(?:\s+of)?|under|below|"
        r"less\s+than|fewer\s+than)\s+\d+\s+(?:words|sentences|paragraphs|characters|lines|bullet"
        r"(?:\s+points)?)\b.*\b(?:is\s+fine|is\s+ok(?:ay)?|please|max|is\s+enough|works)\b.*)$",
        I,
    ),
]
ONE_OFF = rx.compile(
    r"^(?:write|make|give|create|generate|build|show|tell|explain|fix|help|find|list|draft|"
    r"summari[sz]e|translate|compose|design|plan|suggest|recommend|read|check|review|"
    r"rewrite|convert|calculate|compare)\s+(?:me\s+)?(?:an?|the|this|that|some|my|one|two|"
    r"three|\d+|it|these|those)\b",
    I,
)
ASPECTS: list[tuple[str, rx.Rule]] = [
    (
        "length",
        rx.compile(
            r"\b(?:words?|sentences?|characters?|paragraphs?|lines?|short|"
            r"shorter|concise|brief|succinct|terse|long|longer|length|detailed|"
            r"verbose|to\s+the\s+point)\b",
            I,
        ),
    ),
    ("code_language", rx.compile(r"\b(?:examples?|snippets?|code\s+samples?)\b", I)),
    (
        "language",
        rx.compile(
            r"(?<!british\s)(?<!american\s)\b(?:english|spanish|french|german|"
            r"italian|portuguese|dutch|turkish|indonesian|malay|chinese|mandarin|"
            r"japanese|korean|arabic|hindi|russian|polish|swedish|norwegian|"
            r"danish|finnish|greek|hebrew|vietnamese|thai|ukrainian|czech|romanian|"
            r"hungarian|tagalog|swahili|persian|farsi|urdu|bengali|cantonese)\b",
            I,
        ),
    ),
    (
        "format",
        rx.compile(
            r"\b(?:bullet|markdown|tables?|headings?|headers|lists?|json|yaml|"
            r"bold|italics|numbered|format|formatting)\b",
            I,
        ),
    ),
    ("emoji", rx.compile(r"\bemoji|emoticon", I)),
    ("spelling", rx.compile(r"\b(?:british|american|spelling)\b", I)),
    ("units", rx.compile(r"\b(?:metric|imperial|celsius|fahrenheit|units)\b", I)),
    (
        "tone",
        rx.compile(
            r"\b(?:formal|informal|casual|friendly|polite|blunt|tone|professional|"
            r"encouraging|gentle|strict|funny|serious|humou?r|jokes|slang)\b",
            I,
        ),
    ),
    ("apologies", rx.compile(r"\bapolog", I)),
    ("quotes", rx.compile(r"\b(?:single|double|smart|straight)\s+quotes\b", I)),
    ("disclaimers", rx.compile(r"\b(?:disclaimers?|caveats?|warnings?)\b", I)),
    ("citations", rx.compile(r"\b(?:citations?|sources?|references?)\b", I)),
]
