//! `canju serve`: the HTTP tablebase service and web page ([`canju::service`]) on tiny_http,
//! a few worker threads taking requests from one listener, one log line a request.

use crate::Result;
use crate::args::TableArgs;
use canju::service::{Response, Service};
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

/// `canju serve`.
#[derive(clap::Args)]
pub struct Serve {
    /// Address and port to listen on (port 0: any free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:9000")]
    bind: String,
    /// Generate missing tables of at most this many men when asked for them (0: never; a
    /// missing table is then a 404 naming the `canju gen` command).
    #[arg(long, default_value_t = 0)]
    gen_max_men: u32,
    /// Worker threads answering requests (default: twice the cores, at least 4).
    #[arg(long, default_value_t = 0)]
    workers: usize,
    #[command(flatten)]
    tables: TableArgs,
}

impl Serve {
    pub fn run(self, out: &mut dyn Write) -> Result<()> {
        let server = tiny_http::Server::http(&self.bind)
            .map_err(|e| format!("cannot listen on {}: {e}", self.bind))?;
        let address = server
            .server_addr()
            .to_ip()
            .map_or(self.bind.clone(), |a| a.to_string());
        writeln!(
            out,
            "canju serve: http://{address}/ (tables in {}, rules {})",
            self.tables.dir.display(),
            self.tables.open().rules()
        )?;
        out.flush()?;
        let service = Arc::new(Service::new(self.tables.open(), self.gen_max_men));
        let server = Arc::new(server);
        let workers = if self.workers == 0 {
            (2 * canju::generate::thread_count(0)).max(4)
        } else {
            self.workers
        };
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (server, service) = (Arc::clone(&server), Arc::clone(&service));
                std::thread::spawn(move || serve_requests(&server, &service))
            })
            .collect();
        for h in handles {
            let _ = h.join();
        }
        Ok(())
    }
}

/// Answers requests until the listener closes.
fn serve_requests(server: &tiny_http::Server, service: &Service) {
    while let Ok(request) = server.recv() {
        answer(service, request);
    }
}

/// Answers one request and logs it: client, method, URL, status, bytes, milliseconds.
fn answer(service: &Service, request: tiny_http::Request) {
    let start = Instant::now();
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let response = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        service.handle(&method, &url)
    }))
    .unwrap_or_else(|_| Response::error(500, "internal error (a bug: please report the URL)"));
    let client = request
        .remote_addr()
        .map_or("-".to_string(), |a| a.to_string());
    let bytes = response.body.len();
    let status = response.status;
    let header = tiny_http::Header::from_bytes("Content-Type", response.content_type)
        .expect("a valid header");
    let reply = tiny_http::Response::from_string(response.body)
        .with_status_code(status)
        .with_header(header);
    let sent = request.respond(reply);
    eprintln!(
        "{client} {method} {url} {status} {bytes} {:.1} ms{}",
        start.elapsed().as_secs_f64() * 1e3,
        sent.map_or_else(|e| format!(" (not sent: {e})"), |()| String::new())
    );
}
