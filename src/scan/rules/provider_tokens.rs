//! Provider tokens found by their run of token characters (issue 16, twelfth round): the
//! many services whose keys carry a fixed prefix (Notion's `ntn_`, Pulumi's `pul-`, Vault's
//! `hvs.`, Postman's `PMAK-`, …). One row, gated by the run itself
//! ([`super::Gate::Run`]): every alternative holds 31 or more base64-alphabet characters in
//! a row, so a line without such a run (most prose, code and logs) never runs the pattern,
//! and adding a provider costs the literal search nothing.
//!
//! Prefixes and lengths as each provider documents its key format (or, where it does not,
//! as its keys are issued): a key whose random part is shorter than 31 characters in a row
//! (Alibaba's `LTAI…` id, Square's `sq0atp-…`, Discord bot tokens) is left to the rules
//! that read names and values.

use super::{B, Check, Rule};

/// The row of [`super::RULES`].
pub(super) const PROVIDER_TOKENS: &[Rule] = &[Rule {
    id: "provider_token",
    category: "credentials",
    public: B,
    local: B,
    literals: &[],
    pattern: concat!(
        r"\b(?:",
        // Notion (and its legacy `secret_`), Linear, Figma, Postman, Pulumi, Databricks.
        r"ntn_[A-Za-z0-9]{40,50}|secret_[A-Za-z0-9]{43}|lin_(?:api|oauth)_[A-Za-z0-9]{40,64}",
        r"|fig[dupo]_[A-Za-z0-9_-]{40,}|PMAK-[0-9a-f]{24}-[0-9a-f]{34}|pul-[0-9a-f]{40}|dapi[0-9a-f]{32}",
        // HashiCorp Vault and Terraform Cloud, Doppler, Grafana, Dynatrace.
        r"|hv[sbr]\.[A-Za-z0-9_-]{31,}|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}",
        r"|dp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,20}\.)?[A-Za-z0-9]{40,48}|glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}",
        r"|glc_[A-Za-z0-9+/]{32,}|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
        // Atlassian, Bitbucket, Heroku, Sentry, RubyGems, Clojars, npm-like registries.
        r"|ATATT3[A-Za-z0-9_-]{100,}|ATBB[A-Za-z0-9]{32}|HRKU-[A-Za-z0-9_-]{60}",
        r"|sntrys_eyJ[A-Za-z0-9_+/-]{60,}|sntryu_[0-9a-f]{64}|rubygems_[0-9a-f]{48}|CLOJARS_[a-z0-9]{60}",
        // Mapbox secret tokens, Airtable, Google OAuth, Firebase Cloud Messaging, Facebook.
        r"|sk\.eyJ[A-Za-z0-9_-]{28,}\.[A-Za-z0-9_-]{20,}|pat[A-Za-z0-9]{14}\.[0-9a-f]{64}",
        r"|GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{50,}|AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}",
        r"|EAA[A-Za-z0-9]{90,}",
        // New Relic, Okta, Tailscale, Fly.io, Render, Supabase, PlanetScale, Buildkite.
        r"|NRAK-[A-Z0-9]{27}|NRII-[A-Za-z0-9_-]{32}|[0-9a-f]{36}NRAL|SSWS[ \t]+[0-9A-Za-z_-]{40,}",
        r"|tskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{8,}-[A-Za-z0-9]{20,}|fo1_[A-Za-z0-9_-]{43}",
        r"|FlyV1 fm[12][a-z]?_[A-Za-z0-9+/=_-]{40,}",
        r"|rnd_[A-Za-z0-9]{32}|sbp_[0-9a-f]{40}|pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,}|bkua_[0-9a-f]{40}",
        // Model providers: Groq, xAI, Replicate, Perplexity, LangSmith, Pinecone.
        r"|gsk_[A-Za-z0-9]{52}|xai-[A-Za-z0-9]{80}|r8_[A-Za-z0-9]{37}|pplx-[A-Za-z0-9]{48}",
        r"|lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}|pcsk_[A-Za-z0-9]{5,}_[A-Za-z0-9]{40,}",
        // JFrog, SonarQube, Contentful, Square, Intercom, Typeform, Netlify, Adafruit, Prefect.
        r"|AKCp[A-Za-z0-9]{69}|cmVmdGtuOjAxOj[A-Za-z0-9]{40,}|sq[pua]_[0-9a-f]{40}|CFPAT-[A-Za-z0-9_-]{43}",
        r"|EAAA[A-Za-z0-9_-]{60}|sq0csp-[A-Za-z0-9_-]{43}|dG9rO[A-Za-z0-9+/]{40,}={0,2}",
        r"|tfp_[A-Za-z0-9_-]{44}_[A-Za-z0-9_-]{14}|nfp_[A-Za-z0-9]{36}|aio_[A-Za-z0-9]{28}|pnu_[A-Za-z0-9]{36}",
        // Payments and mail: Plaid, Duffel, EasyPost, Shippo, Flutterwave, Mailchimp, Brevo.
        r"|access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        r"|duffel_(?:test|live)_[A-Za-z0-9_=-]{43}|EZ[AT]K[A-Za-z0-9]{54}|shippo_(?:live|test)_[0-9a-f]{40}",
        r"|FLWSECK(?:_TEST)?-[0-9a-f]{32}-X|[0-9a-f]{32}-us\d{1,2}|xkeysib-[0-9a-f]{64}-[A-Za-z0-9]{16}",
        // age and minisign secret keys, GitLab trigger tokens, Scalingo, ReadMe, Tencent Cloud.
        r"|AGE-SECRET-KEY-1[0-9A-Z]{58}|RWRTY0Iy[A-Za-z0-9+/]{100,}={0,2}|glptt-[0-9a-f]{40}",
        r"|tk-us-[A-Za-z0-9_-]{48}|rdme_[a-z0-9]{70}|AKID[A-Za-z0-9]{32}",
        r")\b",
    ),
    check: Check::Random,
    what: "a provider's token by its documented prefix and length (Notion `ntn_`, Pulumi `pul-`, Vault `hvs.`, Postman `PMAK-` and about 55 more)",
    hit: "ntn_H8supob3oRuBVdle8s8WVubNmLrNo7agxdx5IqZ36MfhGqw",
    miss: "ntn_ (Notion's prefix, in docs)",
}];
