//! Styles. Every marker also carries a symbol or word, so nothing relies on colour alone;
//! with colours off (`NO_COLOR`, theme `mono`) only bold / reversed / underline remain.

use crate::engine::Predicted;
use crate::wire::Status;
use ratatui::style::{Color, Modifier, Style};

/// The palette in use.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    color: bool,
}

impl Theme {
    /// A theme with or without colours.
    #[must_use]
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    fn fg(self, c: Color) -> Style {
        if self.color { Style::new().fg(c) } else { Style::new() }
    }

    /// Titles and headers.
    #[must_use]
    pub fn title(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// Dim secondary text.
    #[must_use]
    pub fn dim(self) -> Style {
        if self.color { Style::new().fg(Color::DarkGray) } else { Style::new().add_modifier(Modifier::DIM) }
    }
    /// Selected row.
    #[must_use]
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
    /// Added diff line.
    #[must_use]
    pub fn added(self) -> Style {
        self.fg(Color::Green)
    }
    /// Removed diff line.
    #[must_use]
    pub fn removed(self) -> Style {
        self.fg(Color::Red)
    }
    /// A changed word inside a changed line.
    #[must_use]
    pub fn emphasis(self) -> Style {
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    /// Banner and warnings.
    #[must_use]
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }
    /// Errors and blocks.
    #[must_use]
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// Success.
    #[must_use]
    pub fn ok(self) -> Style {
        self.fg(Color::Green).add_modifier(Modifier::BOLD)
    }

    /// The marker symbol and style of a predicted status.
    #[must_use]
    pub fn status(self, p: &Predicted) -> (&'static str, Style) {
        match p {
            Predicted::Ready => ("✓", self.ok()),
            Predicted::Invalid => ("?", self.fg(Color::Magenta)),
            Predicted::Status(Status::SkippedDuplicate | Status::AlreadyApplied) => ("=", self.dim()),
            Predicted::Status(Status::BoundaryRejected | Status::Failed) => ("✗", self.error()),
            Predicted::Status(_) => ("!", self.warn()),
        }
    }
}
