//! Tests of the issue-16 tenth round (session of 2026-12-05, seventh): the variants and
//! false positives the ninth round's attack left named.

use super::second_pass_tests::{assert_found, assert_quiet};

#[test]
fn more_runtime_and_agent_traces_block() {
    assert_found(&[
        (
            "Thread 3 \"worker-2\" received signal SIGSEGV, Segmentation fault.\n[Switching to Thread 0x7ffff5e3f640 (LWP 48211)]\n0x00005555555563b2 in drain_queue (q=0x0) at queue.c:88",
            "runtime_trace",
            "block",
        ),
        (
            "[2025-02-11 09:14:03] production.ERROR: Undefined index: sku {\"exception\":\"[object] (ErrorException(code: 0): Undefined index: sku at /var/www/shop/app/Cart.php:57)\n[stacktrace]\n#0 /var/www/shop/app/Cart.php(57): handleError()",
            "runtime_trace",
            "block",
        ),
        (
            "> Entering new AgentExecutor chain...\n\nInvoking: `lookup_invoice` with `{'number': 'INV-2231'}`\n\nInvoice INV-2231 is overdue.\nInvoking: `send_reminder` with `{'to': 'billing'}`\n\nsent\n> Finished chain.",
            "agent_trace",
            "block",
        ),
        (
            "---------- user ----------\nFind the cheapest flight to Oslo.\n---------- planner ----------\nI will ask the search agent.\n---------- TextMessage (search_agent) ----------\nSAS 412, 89 EUR.",
            "autogen_console",
            "block",
        ),
    ]);
    assert_quiet(&[
        "---------- Forwarded message ----------\nFrom: Events Desk <events@example.org>\nSubject: Open day\n---------- Original message ----------\nThe museum opens at nine.",
        "Thread 3 received the signal to stop; see the gdb notes",
        "Invoking: `build` runs the compiler.",
    ]);
}

#[test]
fn autogen_heads_need_two_senders() {
    assert_found(&[(
        "user_proxy (to assistant):\n\nPlot NVDA.\n\n--------\nassistant (to user_proxy):\n\nHere is the code.",
        "autogen_turns",
        "block",
    )]);
    assert_quiet(&[
        "Draft (to legal):\n\nPlease review clause 4 before Friday.\n\nDraft (to legal):\n\nAnd clause 7, the indemnity cap.",
    ]);
}

#[test]
fn obfuscated_addresses_in_braces_and_angles_and_a_signature_before_its_version_are_found() {
    assert_found(&[
        ("reach the owner at m.ferreira {at} quintal-verde {dot} pt for the keys", "email_obfuscated", "warn"),
        ("contact: ops <at> nordlicht <dot> de", "email_obfuscated", "warn"),
        (
            "https://stacct.blob.core.windows.net/exports/q3.csv?sig=Qm9yZWFsaXNTaWduYXR1cmVGb3JUZXN0aW5nT25seTEy%3D&se=2025-06-01T00%3A00%3A00Z&sp=r&sv=2022-11-02&sr=b",
            "azure_sas",
            "block",
        ),
    ]);
    assert_quiet(&["<attribute name=\"at\"/> {attention} (dot)"]);
}

#[test]
fn a_recovery_phrase_without_a_colon_warns_and_recipes_and_small_seeds_do_not() {
    assert_found(&[
        (
            "MetaMask Secret Recovery Phrase barrel bundle attitude apology angle beach allow brief arctic athlete bird arrive",
            "seed_phrase",
            "warn",
        ),
        (
            "the seed phrase is - velvet cradle mango tribe orbit lemon quarter giggle pulse stadium harbor eternal",
            "seed_phrase",
            "warn",
        ),
        ("seed: 0x5EED1234ABCDEF0011223344556677889900AABBCCDDEEFF0011223344556677", "generic_secret", "warn"),
    ]);
    assert_quiet(&[
        "recovery phrase is never stored on our servers, so write it down on paper and keep it in a safe place",
        "Pepper: freshly ground black pepper",
        "Salt: coarse sea salt flakes",
        "torch.manual_seed(7)  # random seed: 0x5EED1234",
    ]);
}
