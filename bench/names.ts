// Name and street material for realistic variety (DE, CA and international names).
export const FIRST =
  `Anna Ben Clara David Emma Felix Greta Hannah Ida Jonas Karl Lea Lukas Marie Max Mia Noah Olivia Paul Paula Emil Sophie Tim Ella Leon Mila Finn Lina Elias Luisa
Henry Liam Charlotte Amelia Oliver Jack Harry George Isla Ava Ethan Lucas Chloe Zoe Nathan Samuel Grace Aiden Aria Layla Owen Ryan Leah Mason Logan Evelyn Abigail Jacob
Mohammed Fatima Ali Aylin Yusuf Elif Mehmet Zeynep Omar Leyla Hamza Amira Ivan Olga Dmitri Katarina Piotr Agnieszka Marek Zofia Jan Eva Tomas Lucia Mateo Valentina Diego
Camila Santiago Isabella Luca Giulia Marco Francesca Pierre Camille Louis Chloe Hugo Manon Jules Ines Arjun Priya Ravi Ananya Wei Mei Hiroshi Yuki Min Ji Chen Lin Thanh Mai
Jürgen Björn Søren Åsa Zoë Renée José Nuño André Hélène François Çelik Ömer Müge Günther Käthe`.split(/\s+/);

export const LAST =
  `Müller Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz Hoffmann Schäfer Koch Bauer Richter Klein Wolf Schröder Neumann Schwarz Zimmermann Braun
Krüger Hofmann Hartmann Lange Schmitt Werner Schmitz Krause Meier Lehmann Schmid Schulze Maier Köhler Herrmann König Walter Mayer Huber Kaiser Fuchs Peters Lang Scholz Möller
Weiß Jung Hahn Schubert Vogel Friedrich Keller Günther Frank Berger Winkler Roth Beck Lorenz Baumann Franke Albrecht Schuster Simon Ludwig Böhm Winter Kraus Martin Schumacher
Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Lee Perez Thompson White Harris
Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts
Tremblay Gagnon Roy Côté Bouchard Gauthier Morin Lavoie Fortin Gagné Ouellet Pelletier Bélanger Lévesque Bergeron Leblanc Paquette Girard Simard Boucher Caron Beaulieu
Yilmaz Kaya Demir Şahin Çelik Yıldız Öztürk Aydın Özdemir Arslan Kowalski Nowak Wiśniewski Wójcik Kowalczyk Novak Horvat Kovač Popescu Ionescu Papadopoulos Rossi Russo
Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Dubois Durand Leroy Moreau Laurent Lefebvre Michel Garnier Faure Rousseau Blanc Guerin Muller Henry Patel Shah
Singh Kumar Sharma Gupta Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun Ma Zhu Hu Guo Tanaka Suzuki Takahashi Watanabe Ito Yamamoto Nakamura Kobayashi Kim Park`.split(
    /\s+/,
  );

export const DE_STREETS =
  `Hauptstraße Schulstraße Gartenstraße Bahnhofstraße Dorfstraße Bergstraße Birkenweg Lindenstraße Kirchstraße Waldstraße Ringstraße Schillerstraße
Goethestraße Friedhofstraße Wiesenweg Amselweg Jahnstraße Buchenweg Rosenstraße Mühlenweg Sonnenstraße Feldstraße Blumenstraße Mozartstraße Poststraße Kastanienallee
Tannenweg Lessingstraße Eichendorffstraße Parkstraße Uhlandstraße Finkenweg Talstraße Rathausstraße Mittelweg Am Sportplatz Industriestraße Brunnenstraße Kantstraße
Karl-Marx-Allee Torstraße Invalidenstraße Chausseestraße Friedrichstraße Oranienstraße Kottbusser Damm Sonnenallee Greifswalder Straße Prenzlauer Allee`
    .split('\n')
    .flatMap((l) => l.trim().split(/ (?=[A-ZÄÖÜ])/));

export const CA_STREETS =
  `King Street West|Queen Street East|Yonge Street|Bloor Street West|Dundas Street West|College Street|Spadina Avenue|Bathurst Street|Avenue Road|
Rue Sainte-Catherine|Boulevard Saint-Laurent|Rue Sherbrooke|Granville Street|Robson Street|Main Street|Jasper Avenue|Portage Avenue|Barrington Street|Elgin Street|
Bank Street|Rideau Street|Wellington Street|Front Street West|Richmond Street West|Adelaide Street East|Church Street|Jarvis Street|Parliament Street|Danforth Avenue`
    .split('|')
    .map((s) => s.trim())
    .filter(Boolean);

export const DE_CITIES: [string, string][] = [
  ['Berlin', '10'],
  ['Hamburg', '20'],
  ['München', '80'],
  ['Köln', '50'],
  ['Frankfurt am Main', '60'],
  ['Stuttgart', '70'],
  ['Leipzig', '04'],
  ['Dresden', '01'],
  ['Hannover', '30'],
  ['Nürnberg', '90'],
];
export const CA_CITIES: [string, string, string][] = [
  ['Toronto', 'ON', 'M'],
  ['Montréal', 'QC', 'H'],
  ['Vancouver', 'BC', 'V'],
  ['Ottawa', 'ON', 'K'],
  ['Calgary', 'AB', 'T'],
  ['Halifax', 'NS', 'B'],
];
